"""Check the whole ledger; exit non-zero naming each broken rule and entry or account."""

from django.core.management.base import BaseCommand, CommandError

from cashier.verify import ledger_verify


class Command(BaseCommand):
    help = (
        "Verify the cashier's ledger: its arithmetic (every entry balanced, every stored "
        "balance equal to the sum of its postings, the total zero) and its meaning (which "
        "entries may touch which accounts, every settled hand equal to its result)."
    )

    def handle(self, *args, **options) -> None:
        report = ledger_verify()
        self.stdout.write(
            f"Checked {report.entries} entries with {report.postings} postings: each must sum "
            "to zero with at least two legs."
        )
        self.stdout.write(
            f"Checked {report.accounts} accounts: each stored balance against the sum of its "
            "postings; player wallets and table stacks not below zero."
        )
        self.stdout.write(
            f"Total over all accounts: {report.total_balance}; over all postings: "
            f"{report.total_postings} (both must be 0)."
        )
        self.stdout.write("Rules checked:")
        for check in report.checks:
            self.stdout.write(f"  {check.name}: {check.says}")
        if not report.ok:
            for problem in report.problems:
                self.stderr.write(f"VIOLATION {problem}")
            raise CommandError(f"the ledger is NOT consistent: {len(report.problems)} problem(s)")
        self.stdout.write(self.style.SUCCESS("The ledger is consistent."))
