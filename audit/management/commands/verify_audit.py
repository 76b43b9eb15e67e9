"""Recompute the audit log's hash chain; exit non-zero naming the first broken record."""

import json

from django.core.management.base import BaseCommand, CommandError

from audit.verify import audit_verify


class Command(BaseCommand):
    help = (
        "Verify the audit log: walk its records in chain order, recompute each content hash "
        "and link, and check the chain head names the last record."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--json", action="store_true", help="print the result as JSON")

    def handle(self, *args, **options) -> None:
        report = audit_verify()
        if options["json"]:
            self.stdout.write(json.dumps(report.summary()))
        else:
            self.stdout.write(
                f"Checked {report.records} audit records in chain order (head at seq "
                f"{report.head_seq}) in {report.seconds:.2f} s: each content hash, each link, "
                "the head."
            )
            for name in report.checks:
                self.stdout.write(f"  and {name}")
        if not report.ok:
            for problem in report.problems:
                self.stderr.write(f"BROKEN {problem}")
            if report.unlisted:
                self.stderr.write(f"... and {report.unlisted} more")
            raise CommandError(
                f"the audit log is NOT intact: first broken record #{report.first_broken}"
                if report.first_broken is not None
                else "the audit log is NOT intact"
            )
        if not options["json"]:
            self.stdout.write(self.style.SUCCESS("The audit log is intact."))
