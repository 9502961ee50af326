module example.com/gomodule

go 1.19
