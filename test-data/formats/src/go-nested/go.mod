module example.com/gonested

go 1.19
