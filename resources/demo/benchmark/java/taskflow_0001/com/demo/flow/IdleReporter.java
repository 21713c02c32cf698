package com.demo.flow;

public class IdleReporter implements Runnable {
    private final Scheduler scheduler;

    public IdleReporter(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    @Override
    public void run() {
        System.out.println(scheduler.getName() + " idle after " + scheduler.completed() + " tasks");
    }
}
