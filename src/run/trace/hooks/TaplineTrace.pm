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
            my $text = join '', map { "$_\n" } grep { defined && !ref } values %INC;
            $text .= "#done perl\n" if $root && $$ == $pid;
            if (open my $fh, '>>', $out) {
                syswrite $fh, $text;
                close $fh;
            }
            1;
        };
    }
}
1;
