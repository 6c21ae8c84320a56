#!/bin/sh
# /periods COUNT — the boards' periods row (test/integration/boards.sh):
# /periodic (test/workloads/periodic.c, every 12th activation late by
# design, so it misses) on its 10 ms grid beside a CPU hog, a busy shell
# loop at nice 19 keeping the board's one CPU from ever idling and
# preempting the program now and then (at nice 0 it took half the emulated
# CPU from it: 124 of 132 activations missed, each 0.5 s long under a
# loaded host, and the grid was lost); then whether the hog was still running and the program's own log, each line prefixed with
# "PERIODIC ", to the agent's output (the console), where the host reads it,
# then PERIODIC-END (the console drains after the record has ended).
/bin/busybox nice -n 19 /bin/sh -c 'while :; do :; done' &
hog=$!
/periodic /tmp/periodic.log "${1:-300}" 12
rc=$?
# the hog must have run beside the program all along
alive=dead
kill "$hog" && alive=alive
while IFS= read -r l; do echo "PERIODIC $l"; done </tmp/periodic.log
echo "PERIODIC-END $rc hog $alive"
exit $rc
