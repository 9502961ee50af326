module example.com/gomodule/examples

go 1.19

require example.com/unreachable v1.0.0
