import com.demo.flow.IdleReporter;
import com.demo.flow.Scheduler;
import com.demo.flow.tasks.CountdownTask;
import com.demo.flow.tasks.EchoTask;
import com.demo.flow.tasks.GroupTask;
import com.demo.flow.tasks.Task;

public class Main {
    static Task buildRelease() {
        return new GroupTask("release", 2)
                .add(new EchoTask("compile", 1, "ok"))
                .add(new GroupTask("verify", 1)
                        .add(new EchoTask("unit", 1, "42 passed"))
                        .add(new CountdownTask("smoke", 3, 3)));
    }

    static String banner(String title) {
        // Not called in this run.
        return "== " + title + " ==";
    }

    public static void main(String[] args) {
        Scheduler scheduler = new Scheduler("nightly");
        scheduler.submit(new EchoTask("greet", 2, "hello"));
        scheduler.submit(buildRelease());
        scheduler.submit(new CountdownTask("launch", 1, 5));
        scheduler.onIdle(new IdleReporter(scheduler));
        for (String line : scheduler.runAll()) {
            System.out.println(line);
        }
    }
}
