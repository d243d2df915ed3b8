package io.futureq.config;

/** When a publish is answered, weakest first. */
public enum AckLevel {
  /** On receipt, before the batch is durable. */
  NONE,
  /** Once fsynced in the Raft leader's log, before a majority has it; standalone, fsynced and applied. */
  LEADER,
  /** Once a majority has it; standalone, the same as LEADER. */
  QUORUM
}
