"""Recompute the audit log's hash chain; exit non-zero naming the first broken record.

With `--anchor FILE` (any number), also check the live chain against anchors and exports kept
outside the database (audit/anchor.py): a chain rewritten with recomputed links, or cut short
with its head moved back, passes the walk but not an earlier anchor.
"""

import json

from django.core.management.base import BaseCommand, CommandError

from audit.anchor import anchor_load, anchors_compare
from audit.verify import audit_verify


class Command(BaseCommand):
    help = (
        "Verify the audit log: walk its records in chain order, recompute each content hash "
        "and link, and check the chain head names the last record; with --anchor, check it "
        "against anchors or exports kept outside the database."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--json", action="store_true", help="print the result as JSON")
        parser.add_argument(
            "--anchor",
            action="append",
            default=[],
            metavar="FILE",
            help="an anchor, anchor file, daily report, export manifest or audit log export "
            "kept earlier (may be repeated)",
        )

    def handle(self, *args, **options) -> None:
        report = audit_verify()
        anchors = rows = 0
        for path in options["anchor"]:
            try:
                found, exported = anchor_load(path)
            except (OSError, ValueError) as error:
                raise CommandError(f"cannot read {path}: {error}") from error
            if not found and not exported:
                raise CommandError(f"{path} holds no anchor and no exported record")
            anchors, rows = anchors + len(found), rows + len(exported)
            for problem in anchors_compare(found, exported):
                report.problems.append(f"[anchor {path}] {problem}")
        if options["json"]:
            self.stdout.write(json.dumps({**report.summary(), "problems": report.problems}))
        else:
            self.stdout.write(
                f"Checked {report.records} audit records in chain order (head at seq "
                f"{report.head_seq}) in {report.seconds:.2f} s: each content hash, each link, "
                "the head."
            )
            for name in report.checks:
                self.stdout.write(f"  and {name}")
            if options["anchor"]:
                self.stdout.write(
                    f"  and {anchors} anchor(s), {rows} exported record(s) from "
                    f"{len(options['anchor'])} file(s)"
                )
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
