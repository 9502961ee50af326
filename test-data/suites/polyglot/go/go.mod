module example.com/polyglot

go 1.19
