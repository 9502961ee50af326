package My::Preload;
# Preloaded by yath (.yath.rc -P): a test sees it loaded before its first line.
our $LOADED = 1;
1;
