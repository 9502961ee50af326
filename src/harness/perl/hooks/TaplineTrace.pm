package TaplineTrace;
# tapline's dependency trace (loaded with -MTaplineTrace): at exit, appends the files this perl
# loaded (%INC) to $ENV{TAPLINE_TRACE_OUT}, one a line. It loads no module, prints nothing and
# never dies: a trace it cannot write is simply missing. A forked child writes what it has
# too (it may load a module its parent never does), but only the test's first perl, in the
# process that loaded this, ends with the `#done` line that tells tapline the trace is whole.
my $pid = $$;
my $out = $ENV{TAPLINE_TRACE_OUT};
my $root = !$ENV{TAPLINE_TRACE_NESTED};
$ENV{TAPLINE_TRACE_NESTED} = 1 if defined $out;
# Under -T the path from %ENV is tainted, and open would die on it.
($out) = $out =~ /\A(.*)\z/s if defined $out;
END {
    if (defined $out) {
        local ($!, $@, $^E);
        eval {
            my $text = join '', map { "$INC{$_}\n" } grep { loaded($_) } keys %INC;
            $text .= "#done perl\n" if $root && $$ == $pid;
            if (open my $fh, '>>', $out) {
                syswrite $fh, $text;
                close $fh;
            }
            1;
        };
    }
}
# Whether $INC{$key} names the file perl loaded for $key: a path that ends with the key, as
# perl's search of @INC writes it (`lib/Foo/Bar.pm` for `Foo/Bar.pm`), or the key itself
# (`require "./t/lib/x.pl"`). A package declared inline marks itself loaded with any true value
# (`$INC{'Foo.pm'} = 1`, or `__FILE__`); an @INC hook may leave a reference: neither is a
# file this perl read, and `1` would name a file that is not there.
sub loaded {
    my ($key) = @_;
    my $path = $INC{$key};
    return 0 if !defined $path || ref $path;
    return 1 if $path eq $key;
    my $tail = "/$key";
    return length($path) > length($tail) && substr($path, -length($tail)) eq $tail;
}
1;
