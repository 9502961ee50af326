#!/bin/bash
# Alternates commands on a shared machine so each sees the same load: N rounds, each command
# once per round; prints the median wall and CPU (user+sys) seconds of each.
# Usage: N=9 benches/alternate.sh "label|command" ...   (benches/README.md, "Reports")
N=${N:-7}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
declare -A W C
for ((i=0;i<N;i++)); do
  for spec in "$@"; do
    l=${spec%%|*}; c=${spec#*|}
    /usr/bin/time -o "$tmp" -f "%e %U %S" bash -c "$c" >/dev/null 2>/dev/null; r=$(tail -1 "$tmp")
    W[$l]="${W[$l]} $(echo $r | awk '{print $1}')"
    C[$l]="${C[$l]} $(echo $r | awk '{print $2+$3}')"
  done
done
for spec in "$@"; do l=${spec%%|*};
  mw=$(echo ${W[$l]} | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  mc=$(echo ${C[$l]} | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf "%-14s wall %s  cpu %s\n" "$l" "$mw" "$mc"
done
