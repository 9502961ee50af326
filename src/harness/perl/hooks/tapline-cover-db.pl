# tapline's reader of a Devel::Cover database: prints, for every file it measured, a line
# `F <path>` and then `L <line> <count>` for each line holding a statement (its largest
# count: the line ran if any statement on it ran). Run as `perl tapline-cover-db.pl DB`.
use strict;
use warnings;
use Devel::Cover::DB;

my $dir = shift or die "usage: tapline-cover-db.pl DB\n";
my $db = Devel::Cover::DB->new(db => $dir);
$db = $db->merge_runs;
my $cover = $db->cover;
binmode STDOUT;
for my $file (sort $cover->items) {
    my $statements = $cover->file($file)->statement or next;
    print "F $file\n";
    for my $line (sort { $a <=> $b } $statements->items) {
        my $max;
        for my $s (@{ $statements->location($line) || [] }) {
            next if $s->uncoverable;
            my $n = $s->covered || 0;
            $max = $n if !defined $max || $n > $max;
        }
        print "L $line $max\n" if defined $max;
    }
}
