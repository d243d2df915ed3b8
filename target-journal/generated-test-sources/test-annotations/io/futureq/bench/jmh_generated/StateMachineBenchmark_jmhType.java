package io.futureq.bench.jmh_generated;
public class StateMachineBenchmark_jmhType extends StateMachineBenchmark_jmhType_B3 {
}

