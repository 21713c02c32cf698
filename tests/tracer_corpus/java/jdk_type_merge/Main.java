import java.util.AbstractList;
import java.util.ArrayList;
import java.util.LinkedList;

public class Main {
    static int fill(boolean linked) {
        // The two branches meet with an ArrayList and a LinkedList on the stack: the agent's frame
        // computation must read both JDK classes to find their common superclass AbstractList.
        AbstractList<String> list = linked ? new LinkedList<>() : new ArrayList<>();
        list.add(label(list.size()));
        return list.size();
    }

    static String label(int index) {
        return "item" + index;
    }

    public static void main(String[] args) {
        System.out.println(fill(true) + fill(false));
    }
}
