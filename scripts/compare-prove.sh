#!/usr/bin/env bash
# Runs a Perl distribution's tests with prove and with tapline, then compares, file by file,
# which files each ran, each file's verdict, and its counts (tests run, failed, todo, skipped).
#
#   scripts/compare-prove.sh DIST_DIR [TEST_DIR...]      (default: t)
#
#   prove -lr -jJOBS --formatter TaplineCompare TEST_DIR…   prove's own figures per file, from
#                                                          the TAP::Parser it judged the file by
#                                                          (verdict = !has_problems, as prove's)
#   tapline run -I lib -jJOBS --format summary TEST_DIR…   files[].ok and files[].summary
#
# Environment: TAPLINE (default target/release/tapline of this repo), JOBS (default 2),
# KEEP=DIR keeps both outputs there (and REUSE=1 with it compares them again without running). Exits 0 when both ran the same files with the same
# verdicts and counts, 1 listing every difference, 2 when either run could not be read.
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
work=$(cd "$work" && pwd)

# A formatter that, after prove's usual report, writes one line per file: path, then the
# figures of the TAP::Parser prove judged it by.
cat >"$work/TaplineCompare.pm" <<'PERL'
package TaplineCompare;
use strict;
use warnings;
use parent 'TAP::Formatter::File';

sub summary {
    my ( $self, $aggregate, $interrupted ) = @_;
    open my $out, '>', $ENV{TAPLINE_COMPARE_OUT} or die "failed to write: $!";
    for my $file ( $aggregate->descriptions ) {
        my ($p) = $aggregate->parsers($file);
        print {$out} join( "\t", $file, $p->has_problems ? 0 : 1, scalar $p->tests_run,
            scalar $p->failed, scalar $p->todo, scalar $p->skipped ), "\n";
    }
    close $out;
    $self->SUPER::summary( $aggregate, $interrupted );
}

1;
PERL

cd "$dist"
seconds() { date +%s.%N; }
t0=$(seconds)
if [ -z "${REUSE:-}" ]; then
  TAPLINE_COMPARE_OUT="$work/prove.tsv" PERL5LIB="$work${PERL5LIB:+:$PERL5LIB}" \
    prove -lr -j"$jobs" --formatter TaplineCompare "$@" >"$work/prove.txt" 2>&1 || true
fi
t1=$(seconds)
if [ -z "${REUSE:-}" ]; then
  "$tapline" run --no-logs -I lib -j"$jobs" --format summary "$@" >"$work/tapline.json" 2>"$work/tapline.txt" || true
fi
t2=$(seconds)

perl -MJSON::PP -e '
  use strict; use warnings;
  my ($prove_file, $summary_file, $prove_s, $tapline_s) = @ARGV;
  my @fields = qw(ok run failed todo skipped);
  open my $pf, "<", $prove_file
    or do { print STDERR "compare-prove: prove left no figures (see its output)\n"; exit 2 };
  my %prove;
  while (<$pf>) { chomp; my ($f, @v) = split /\t/; @{ $prove{$f} }{@fields} = @v }
  open my $jf, "<", $summary_file or die;
  my $json = do { local $/; <$jf> };
  my $doc = eval { JSON::PP->new->decode($json) }
    or do { print STDERR "compare-prove: tapline printed no summary (see its stderr)\n"; exit 2 };
  my (%tapline, %why);
  for my $f (@{ $doc->{files} }) {
    # Counted as TAP::Parser counts them: top-level test points (a subtest is one, closed by
    # its own point); a TODO point is not failed, a "not ok # SKIP" is.
    my @points = @{ ($f->{summary} || {})->{asserts} || [] };
    @{ $tapline{ $f->{path} } }{@fields} = (
      $f->{ok} ? 1 : 0, scalar(@points),
      scalar(grep { !$_->{ok} && !defined $_->{todo} } @points),
      scalar(grep { defined $_->{todo} } @points),
      scalar(grep { defined $_->{skip} } @points));
    $why{ $f->{path} } = join "; ", @{ $f->{reasons} || [] };
  }
  my @diff;
  for my $f (sort keys %prove) {
    if (!exists $tapline{$f}) { push @diff, "only prove ran $f"; next }
    my @d = grep { $prove{$f}{$_} != $tapline{$f}{$_} } @fields;
    push @diff, "$f: " . join(", ", map { "$_ prove $prove{$f}{$_} tapline $tapline{$f}{$_}" } @d)
      . ($why{$f} ne "" ? " (tapline: $why{$f})" : "") if @d;
  }
  push @diff, "only tapline ran $_" for grep { !exists $prove{$_} } sort keys %tapline;
  for my $who ([prove => \%prove, $prove_s], [tapline => \%tapline, $tapline_s]) {
    my ($name, $files, $secs) = @$who;
    my @all = values %$files;
    my $sum = sub { my $k = shift; my $n = 0; $n += $_->{$k} for @all; $n };
    printf "%-8s %d files, %d failed; %d tests, %d failed, %d todo, %d skipped; %.1fs\n", "$name:",
      scalar(@all), scalar(grep { !$_->{ok} } @all), $sum->("run"), $sum->("failed"),
      $sum->("todo"), $sum->("skipped"), $secs;
  }
  if (@diff) { print "DIFFERENT (", scalar(@diff), "):\n"; print "  $_\n" for @diff; exit 1 }
  print "same files; same verdict and counts for every file\n";
' "$work/prove.tsv" "$work/tapline.json" "$(perl -e "print $t1 - $t0")" "$(perl -e "print $t2 - $t1")"
