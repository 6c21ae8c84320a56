#!/bin/sh
# /periods COUNT — the boards' periods row (test/integration/boards.sh):
# /periodic (test/workloads/periodic.c, every 12th activation late by
# design, so it misses) on its 10 ms grid beside a CPU hog, a busy shell
# loop at the same nice on the board's one CPU (Debian's busybox has no
# nice), which preempts it and makes more of its activations miss; then
# whether the hog ran all along and the program's own log, each line
# prefixed with "PERIODIC ", to the agent's output (the console), where the
# host reads it, and PERIODIC-END last (the console drains after the record
# has ended).
/bin/sh -c 'while :; do :; done' &
hog=$!
/periodic /tmp/periodic.log "${1:-300}" 12
rc=$?
# the hog must have run beside the program all along
alive=dead
kill "$hog" && alive=alive
while IFS= read -r l; do echo "PERIODIC $l"; done </tmp/periodic.log
echo "PERIODIC-END $rc hog $alive"
exit $rc
