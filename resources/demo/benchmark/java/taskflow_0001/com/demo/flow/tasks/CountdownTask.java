package com.demo.flow.tasks;

public class CountdownTask extends Task {
    private final int from;

    public CountdownTask(String name, int priority, int from) {
        super(name, priority);
        this.from = from;
    }

    @Override
    protected String run(int depth) {
        return countdown(from);
    }

    private String countdown(int n) {
        return n == 0 ? "liftoff" : n + " " + countdown(n - 1);
    }
}
