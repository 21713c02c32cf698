import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

public class Main {
    static class Version implements Comparable<Version> {
        final int major;

        Version(int major) {
            this.major = major;
        }

        @Override
        public int compareTo(Version other) {
            return Integer.compare(major, other.major);
        }
    }

    public static void main(String[] args) {
        List<Version> vs = new ArrayList<>(List.of(new Version(3), new Version(1), new Version(2)));
        Collections.sort(vs);
        System.out.println(vs.get(0).major);
    }
}
