#!/bin/bash
# The step test's program (issue 27), for threadrun --metric 'rate: (\S+)':
# it prints a rate of 100 x THREADRUN_THREADS, x 0.7 from its 6th run on
# (a machine that loses 30% of its speed after the 5th measurement).  It
# counts its runs in the file STEP_STATE and appends "RUN POLICY THREADS
# REPEAT" to STEP_STATE.runs, so a test sees the order the runs came in.
# STEP_STOP=K: its K-th run interrupts threadrun (SIGINT), as a user would.
state=${STEP_STATE:?STEP_STATE names the file that counts the runs}
run=$(( $(cat "$state" 2>/dev/null || echo 0) + 1 ))
echo "$run" >"$state"
threads=${THREADRUN_THREADS:-1}
echo "$run ${THREADRUN_POLICY:-} $threads ${THREADRUN_REPEAT:-}" >>"$state.runs"
if [ "$run" = "${STEP_STOP:-}" ]; then
	kill -INT "$PPID"
	sleep 1
fi
if [ "$run" -ge 6 ]; then
	echo "rate: $((70 * threads))"
else
	echo "rate: $((100 * threads))"
fi
