package io.futureq.group.jmh_generated;
public class DueReadBenchmark_jmhType extends DueReadBenchmark_jmhType_B3 {
}

