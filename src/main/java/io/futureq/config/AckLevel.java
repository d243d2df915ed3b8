package io.futureq.config;

/** When a publish is answered, weakest first. */
public enum AckLevel {
  /** On receipt, before the batch is durable. */
  NONE,
  /** Once durable on the writing node (fsynced). */
  LEADER,
  /** Once a majority has it; standalone, the same as LEADER. */
  QUORUM
}
