#!/usr/bin/env bash
# Runs a Perl distribution's tests with prove and with tapline, then compares, file by file,
# which files each ran and each file's verdict.
#
#   scripts/compare-prove.sh DIST_DIR [TEST_DIR...]      (default: t)
#
#   prove -lr -jJOBS --state=save --statefile=… TEST_DIR…        (prove's own verdict per file:
#                                                                  its state file's last_result)
#   tapline run -I lib -jJOBS --format summary TEST_DIR…          (files[].ok)
#
# Environment: TAPLINE (default target/release/tapline of this repo), JOBS (default 2),
# KEEP=DIR keeps both outputs there. Exits 0 when both ran the same files with the same
# verdicts, 1 listing every difference, 2 when either run could not be read.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tapline=${TAPLINE:-$repo/target/release/tapline}
jobs=${JOBS:-2}
if [ $# -lt 1 ]; then
  echo "usage: $0 DIST_DIR [TEST_DIR...]" >&2
  exit 2
fi
dist=$1
shift
if [ $# -eq 0 ]; then set -- t; fi
for tool in prove perl "$tapline"; do
  command -v "$tool" >/dev/null || { echo "compare-prove: $tool is not installed" >&2; exit 2; }
done

work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
cd "$dist"

seconds() { date +%s.%N; }
t0=$(seconds)
prove -lr -j"$jobs" --state=save --statefile="$work/prove-state.yml" "$@" >"$work/prove.txt" 2>&1 || true
t1=$(seconds)
"$tapline" run --no-logs -I lib -j"$jobs" --format summary "$@" >"$work/tapline.json" 2>"$work/tapline.txt" || true
t2=$(seconds)

perl -MJSON::PP -MTAP::Parser::YAMLish::Reader -e '
  use strict; use warnings;
  my ($state_file, $summary_file, $prove_s, $tapline_s) = @ARGV;
  open my $sf, "<", $state_file or do { print STDERR "compare-prove: prove left no state: $!\n"; exit 2 };
  my @lines = <$sf>; chomp @lines;
  my $state = TAP::Parser::YAMLish::Reader->new->read(sub { shift @lines });
  my %prove = map { $_ => ($state->{tests}{$_}{last_result} == 0) } keys %{ $state->{tests} || {} };
  open my $jf, "<", $summary_file or die;
  my $json = do { local $/; <$jf> };
  my $doc = eval { JSON::PP->new->decode($json) }
    or do { print STDERR "compare-prove: tapline printed no summary (see its stderr)\n"; exit 2 };
  my %tapline = map { $_->{path} => [ $_->{ok} ? 1 : 0, join("; ", @{ $_->{reasons} || [] }) ] } @{ $doc->{files} };
  my @diff;
  for my $f (sort keys %prove) {
    if (!exists $tapline{$f}) { push @diff, "only prove ran $f"; next }
    my ($ok, $why) = @{ $tapline{$f} };
    push @diff, sprintf("%s: prove %s, tapline %s%s", $f, $prove{$f} ? "ok" : "FAIL",
      $ok ? "ok" : "FAIL", $why eq "" ? "" : " ($why)") if $ok != $prove{$f};
  }
  push @diff, "only tapline ran $_" for grep { !exists $prove{$_} } sort keys %tapline;
  my $failed = grep { !$prove{$_} } keys %prove;
  printf "prove:   %d files, %d failed, %.1fs\n", scalar(keys %prove), $failed, $prove_s;
  printf "tapline: %d files, %d failed, %.1fs\n", scalar(keys %tapline),
    scalar(grep { !$_->[0] } values %tapline), $tapline_s;
  if (@diff) { print "DIFFERENT (", scalar(@diff), "):\n"; print "  $_\n" for @diff; exit 1 }
  print "same files, same verdict for every file\n";
' "$work/prove-state.yml" "$work/tapline.json" "$(perl -e "print $t1 - $t0")" "$(perl -e "print $t2 - $t1")"
