module example.com/gocrash

go 1.19
