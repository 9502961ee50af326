#!/bin/sh
# Everything a child can print that a report must survive: markup, CDATA and element ends,
# colour codes and control bytes (NUL, BEL, VT), Markdown table syntax, backticks, and
# GitHub workflow-command syntax (`%`, `:`, `,`, `::error::`).
cat <<'TAP'
TAP version 14
1..5
ok 1 - <script>alert('name')</script> & "quotes"
TAP
printf 'output <b>bold</b> ]]> </system-out> | pipe `tick` 50%% a:b,c\n'
printf 'control: NUL[\000] BEL[\007] VT[\013] ESC[\033[31mred\033[0m]\n'
printf 'stderr <err> ]]> </system-err>\n' >&2
cat <<'TAP'
not ok 2 - pipes | and `ticks` 50% a:b,c ::error::forged
  ---
  message: "</failure>]]><script>x</script> 100%"
  wanted: "<b>x</b>\nsame"
  found: "<i>x</i>\nsame"
  at: "lib/a:b,c.js:9:3"
  ...
ok 3 - " onmouseover="x" x="
ok 4 - <link> # SKIP <script>alert(1)</script> | `skip`
TAP
printf 'not ok 5 - bell\007 vt\013 esc\033[1m name # TODO ]]> later\n'
