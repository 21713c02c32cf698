package com.demo.flow.tasks;

import java.util.ArrayList;
import java.util.List;

public class GroupTask extends Task {
    private final List<Task> children;

    public GroupTask(String name, int priority) {
        super(name, priority);
        this.children = new ArrayList<>();
    }

    public GroupTask add(Task child) {
        children.add(child);
        return this;
    }

    @Override
    protected String run(int depth) {
        StringBuilder sb = new StringBuilder(children.size() + " subtasks");
        children.forEach(child -> sb.append("\n").append(child.execute(depth + 1)));
        return sb.toString();
    }
}
