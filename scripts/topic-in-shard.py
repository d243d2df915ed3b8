#!/usr/bin/env python3
"""Prints the first topic name PREFIX<i> (i = 0, 1, ...) that lies in log shard SHARD of COUNT.

A topic's shard is FNV-1a 64 of its name, modulo the shard count (ClusterInfo.log_shards says how; the broker's
LogShards.indexOf). Usage: scripts/topic-in-shard.py SHARD COUNT PREFIX
"""
import sys


def fnv1a64(name):
    h = 0xcbf29ce484222325
    for b in name.encode():
        h = ((h ^ b) * 0x100000001b3) % (1 << 64)
    return h


def main():
    shard, count, prefix = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    i = 0
    while fnv1a64(prefix + str(i)) % count != shard:
        i += 1
    print(prefix + str(i))


if __name__ == "__main__":
    main()
