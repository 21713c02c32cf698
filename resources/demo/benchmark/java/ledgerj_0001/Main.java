import com.demo.bank.AuditLog;
import com.demo.bank.CheckingAccount;
import com.demo.bank.LargeTransferAlert;
import com.demo.bank.Ledger;
import com.demo.bank.SavingsAccount;

public class Main {
    private final Ledger ledger;

    public Main() {
        this.ledger = new Ledger();
    }

    void setup(AuditLog audit, LargeTransferAlert alert) {
        ledger.open(new CheckingAccount("ana", 100.0, 50.0));
        ledger.open(new SavingsAccount("ben", 500.0, 0.01));
        ledger.addListener(audit);
        ledger.addListener(alert);
    }

    void run() {
        ledger.transfer("ana", "ben", 130.0);
        ledger.transfer("ben", "ana", 20.0);
        ledger.transfer("ana", "ben", 500.0);
        ledger.closeMonth();
    }

    public static void main(String[] args) {
        Main app = new Main();
        AuditLog audit = new AuditLog();
        LargeTransferAlert alert = new LargeTransferAlert(120.0);
        app.setup(audit, alert);
        app.run();
        audit.print();
        System.out.println("debits: " + app.ledger.debitCount() + ", alerts: " + alert.getCount());
    }
}
