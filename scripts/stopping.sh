# Sourced by the shell verbs that run tiers (matrix.sh, all.sh): how they stop on SIGINT and SIGTERM (docs/CLI.md,
# "Signals").
#   run_step CMD...       run a step in the background and wait for it: a trap runs at once, not when the step ends
#                         ($step_pid: the step, for a trap of a shell that must not end before it)
#   stop_verb VERB SIG    the trap: say so, pass SIG on, wait for the tiers to write what they judged, exit 128 + SIG
# The signal is passed on to the verb's whole process group when this shell leads it (as ./ptxcts starts a verb):
# a signal sent to the shell alone, or the parent-death SIGTERM ./ptxcts sets (when ./ptxcts is killed outright),
# stops every tier as one sent to the group does. A shell that does not lead its group (a verb run by another)
# passes it to its own steps. A tier that gets it twice acts on the first (harness/framework/boundary.py, and
# stop_on_signals of harness/runcore). The shell ends only once its steps have: ./ptxcts kills what is left of the
# group 2 s after the verb's end, which must not cut off a tier still writing its document.

# run_step py MODULE ARGS...: a Python layer of this tree, started as ./ptxcts starts a verb: inside the error
# boundary (python3 -m framework) and with SIGINT and SIGTERM ignored until framework/__main__ puts its handlers in
# place (an ignored disposition survives exec; ./ptxcts blocks them instead). A signal while the interpreter starts
# is then never a KeyboardInterrupt traceback; stop_verb sends the signal again once that start is over. py execs
# in the subshell run_step starts, so the Python process is the step the shell waits for (never a grandchild that a
# signal would orphan); called in the shell itself it refuses.
py() {
  if [ "$BASHPID" = "$$" ]; then echo "py $1: run it as a step (run_step py ...), not in the shell itself" >&2; return 2; fi
  trap '' INT TERM
  exec python3 -m framework "$@"
}

run_step() {
  "$@" &
  step_pid=$!   # what a trap waits for (a plain `wait` would also wait for this shell's process substitutions)
  wait $step_pid
}

# step_traps: for a background shell of the verb that runs steps (all's lanes): on SIGINT or SIGTERM it waits for
# its step (the tier writes what it judged), then ends 130/143 -- never before the step (the verb's shell would end,
# and ./ptxcts kill the group, while the tier still writes), nor waiting for its own process substitutions. Without
# the trap, bash's default would end such a shell at once. The trap ignores both signals first (the signal comes
# again: stop_verb passes it on to the group, and once more a second later; bash ran the trap again inside itself
# at each), and waits for the step by polling it (step_ended), not with `wait`.
step_traps() {
  trap 'trap "" INT TERM; step_ended; exit 130' INT
  trap 'trap "" INT TERM; step_ended; exit 143' TERM
}

# step_ended: until the step ($step_pid) has ended. Not `wait`: in a trap that interrupted run_step's `wait` for
# the same step, bash 5.2's `wait` waited for ever once the step had ended -- in effect for any other child, the
# lane's line prefixer, which ends only with the lane: the lane and the verb hung (about half of the signals that
# came while a lane ran a step). The shell reaps the step while it waits for `sleep`.
step_ended() {
  while [ -n "${step_pid:-}" ] && kill -0 "$step_pid" 2>/dev/null; do sleep 0.1; done
}

leads_group() {
  [ "$(ps -o pgid= -p $$ | tr -d ' ')" = "$$" ]
}

stop_verb() {
  local verb=$1 sig=$2 job
  trap '' INT TERM
  echo "$verb: interrupted by $sig" >&2
  if leads_group; then
    kill -s "${sig#SIG}" 0 2>/dev/null
    # once more after a second: a step started with the signals ignored (py) that was still starting missed the
    # first; a tier that got it acts on the first only
    ( sleep 1; kill -s "${sig#SIG}" 0 2>/dev/null ) &
  else
    for job in $(jobs -p); do kill -s "${sig#SIG}" "$job" 2>/dev/null; done
  fi
  [ -n "${STOP_HOOK:-}" ] && "$STOP_HOOK" "$sig"
  wait
  case $sig in SIGINT) exit 130 ;; *) exit 143 ;; esac
}
