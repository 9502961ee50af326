package TestHelper;
sub expected { "hello, world" }
1;
