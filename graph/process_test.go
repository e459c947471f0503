package graph_test

func childMain() bool { return false }
