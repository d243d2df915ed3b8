package io.futureq.console;

import io.futureq.api.CallAccess;
import java.time.Clock;

/** What the console's routes use, built once by {@link ConsoleServer}. */
record ConsoleContext(CallAccess access, ConsoleReads reads, ConsoleActions actions, TopicListing listing,
    TimelineTopics timelineTopics, TimelineReader timeline, TimelineStream stream, ConsoleOverview overview,
    Clock clock) {}
