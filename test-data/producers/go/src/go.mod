module example.com/recorded

go 1.19
