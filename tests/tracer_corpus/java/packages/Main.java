import com.acme.model.User;
import com.acme.util.Strings;

public class Main {
    public static void main(String[] args) {
        User u = new User(" ann ");
        System.out.println(Strings.shout(u.getName()));
    }
}
