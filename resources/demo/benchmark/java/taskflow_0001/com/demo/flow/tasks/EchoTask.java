package com.demo.flow.tasks;

public class EchoTask extends Task {
    private final String message;

    public EchoTask(String name, int priority, String message) {
        super(name, priority);
        this.message = message;
    }

    @Override
    protected String run(int depth) {
        return message;
    }
}
