public class Main {
    static int total(int[] xs) {
        int t = 0;
        for (int x : xs) {
            t += x;
        }
        return t;
    }

    static int count(String[][] grid) {
        return grid.length * grid[0].length;
    }

    static double avg(double values[]) {
        return values[0];
    }

    public static void main(String[] args) {
        System.out.println(total(new int[] {1, 2}) + count(new String[][] {{"a"}}) + avg(new double[] {2.0}));
    }
}
