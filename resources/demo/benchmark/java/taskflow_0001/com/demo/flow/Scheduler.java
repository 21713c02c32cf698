package com.demo.flow;

import com.demo.flow.tasks.Task;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

public class Scheduler {
    private final String name;
    private final List<Task> pending;
    private final List<String> log;
    private Runnable idleHook;

    public Scheduler(String name) {
        this.name = name;
        this.pending = new ArrayList<>();
        this.log = new ArrayList<>();
    }

    public String getName() {
        return name;
    }

    public void submit(Task task) {
        pending.add(task);
    }

    public void onIdle(Runnable hook) {
        this.idleHook = hook;
    }

    public int completed() {
        return log.size();
    }

    public List<String> runAll() {
        PriorityQueue<Task> queue = new PriorityQueue<>((a, b) -> a.getPriority() != b.getPriority()
                ? Integer.compare(a.getPriority(), b.getPriority())
                : a.getName().compareTo(b.getName()));
        queue.addAll(pending);
        pending.clear();
        while (!queue.isEmpty()) {
            Task task = queue.poll();
            log.add(task.execute(0));
        }
        if (idleHook != null) {
            idleHook.run();
        }
        return log;
    }
}
