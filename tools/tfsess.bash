# tools/tfsess.bash - bash completion for tfsess, installed as
# $(bashcompletiondir)/tfsess by `make install`.
#
# Commands and each command's options come from tfsess itself (`tfsess
# --help`, `tfsess COMMAND --help`), so they follow the installed
# program.  Arguments complete as file names: models (.pb, .pbtxt, a
# SavedModel directory), .npy feeds, output directories; --mpi-output's
# values are its two modes.

# The options `tfsess CMD --help` lists (cached per command).
_tfsess_options() {
  local cmd=$1 var
  var=_tfsess_opts_${cmd//[^a-zA-Z0-9_]/_}
  if [[ -z ${!var-} ]]; then
    printf -v "$var" '%s' "$("${_tfsess_prog:-tfsess}" "$cmd" --help 2>/dev/null |
      sed -n 's/^  \(--[a-z0-9][a-z0-9-]*\).*/\1/p' | sort -u | tr '\n' ' ')"
  fi
  printf '%s' "${!var}"
}

# Whether `tfsess CMD --help` shows option $2 with a value (--NAME VALUE).
_tfsess_takes_value() {
  "${_tfsess_prog:-tfsess}" "$1" --help 2>/dev/null |
    grep -Eq "^  $2 [^ ]"
}

_tfsess() {
  local cur prev words cword
  if declare -F _init_completion >/dev/null 2>&1; then
    _init_completion -n = || return
  else
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
  fi
  local _tfsess_prog=${words[0]}

  if ((cword == 1)); then
    local cmds
    cmds=$("$_tfsess_prog" --help 2>/dev/null |
      sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z_-]*\) .*/\1/p' | tr '\n' ' ')
    mapfile -t COMPREPLY < <(compgen -W "$cmds help --help --version" -- "$cur")
    return
  fi
  local cmd=${words[1]}
  if [[ $cmd == help ]]; then
    ((cword == 2)) && mapfile -t COMPREPLY < <(compgen -W "$("$_tfsess_prog" \
      --help 2>/dev/null |
      sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z_-]*\) .*/\1/p')" -- "$cur")
    return
  fi

  # options with a fixed set of values
  if [[ $prev == --mpi-output ]]; then
    mapfile -t COMPREPLY < <(compgen -W "gather per-rank" -- "$cur")
    return
  fi
  if [[ $cur == --mpi-output=* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "gather per-rank" -- "${cur#*=}")
    COMPREPLY=("${COMPREPLY[@]/#/--mpi-output=}")
    return
  fi
  # --NAME=VALUE: complete VALUE as a file
  if [[ $cur == --*=* ]]; then
    local pre=${cur%%=*}= val=${cur#*=}
    mapfile -t COMPREPLY < <(compgen -f -- "$val")
    COMPREPLY=("${COMPREPLY[@]/#/$pre}")
    compopt -o filenames 2>/dev/null
    return
  fi
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_tfsess_options "$cmd")" -- "$cur")
    return
  fi
  # the value of an option that takes one, or a positional argument
  # (MODEL.pb, a SavedModel directory, a checkpoint prefix): file names;
  # NAME=FILE.npy values complete the part after '='
  if [[ $prev == --* ]] && _tfsess_takes_value "$cmd" "$prev" &&
     [[ $cur == *=* ]]; then
    local pre=${cur%%=*}= val=${cur#*=}
    mapfile -t COMPREPLY < <(compgen -f -- "$val")
    COMPREPLY=("${COMPREPLY[@]/#/$pre}")
    compopt -o filenames 2>/dev/null
    return
  fi
  if declare -F _filedir >/dev/null 2>&1; then
    _filedir
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    compopt -o filenames 2>/dev/null
  fi
}
complete -F _tfsess tfsess
