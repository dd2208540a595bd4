# Sourced by the shell verbs (all, matrix, setup): one check of a comma-separated option value, so that each verb
# refuses the same bad lists the same way (docs/CLI.md, exit 2), before any work starts. The Python verbs' twin is
# ptxcts_gen/arguments.py's comma_list.
#   check_list VERB OPTION NOUN VALUE [KNOWN...]   exit 2 naming the option when VALUE is empty or only commas,
#                                                  has an empty item (a,,b  ,a  a,), an item with blanks, an item
#                                                  twice, or one not among KNOWN; NOUN names an item (toolchain)
check_list() {
  local verb=$1 opt=$2 noun=$3 value=$4 item known
  shift 4
  known=$*
  local -A seen=()
  if [ -z "${value//[[:space:],]/}" ]; then
    echo "$verb: $opt '$value' names no $noun (give a comma-separated list, or leave the option out)" >&2; exit 2
  fi
  local -a items=()
  IFS=, read -r -a items <<< "$value,"   # the trailing comma keeps a trailing empty item visible
  [ "${value: -1}" = , ] && items+=("")
  for item in "${items[@]}"; do
    if [ -z "$item" ]; then
      echo "$verb: $opt '$value': an empty item (a leading, trailing or doubled comma)" >&2; exit 2
    fi
    if [[ $item =~ [[:space:]] ]]; then
      echo "$verb: $opt '$value': '$item' has a blank in it (items are separated by commas alone)" >&2; exit 2
    fi
    if [ -n "${seen[$item]:-}" ]; then echo "$verb: $opt '$value' names $item twice" >&2; exit 2; fi
    seen[$item]=1
    if [ -n "$known" ] && [[ " $known " != *" $item "* ]]; then
      echo "$verb: $opt '$value': '$item' is not one of: ${known// /, }" >&2; exit 2
    fi
  done
}
