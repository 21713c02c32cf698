import com.demo.inventory.Category;
import com.demo.inventory.Inventory;
import com.demo.inventory.Item;
import com.demo.inventory.Money;
import com.demo.inventory.PerishableItem;

public class Main {
    public static void main(String[] args) {
        Category root = new Category("store");
        Category food = root.child("food");
        Category tools = root.child("tools");
        Inventory inv = new Inventory(root);
        inv.stock(tools, new Item("T-1", "hammer", 12.5, 4));
        inv.stock(tools, new Item("T-2", "wrench", 9.0, 12));
        inv.stock(food, new PerishableItem("F-1", "milk", 1.2, 30, 2));
        inv.stock(food, new PerishableItem("F-2", "cheese", 6.0, 3, 10));
        inv.ship("T-2", 10);
        inv.ship("F-2", 5);
        System.out.print(inv.report());
        root.print("");
        for (Item item : inv.lowStock(5)) {
            System.out.println("reorder " + item.getName());
        }
        System.out.println("shipping fee " + Money.format(499));
    }
}
