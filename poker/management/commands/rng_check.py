"""Run the RNG integrity battery on the room's shuffle; exit non-zero when it fails."""

import json

from django.core.management.base import BaseCommand, CommandError

from poker.models import RngCheck
from poker.rng_checks import (
    LONG_RAW_DRAWS,
    LONG_SHUFFLES,
    QUICK_RAW_DRAWS,
    QUICK_SHUFFLES,
    RngCheckError,
    rng_check_run,
)


class Command(BaseCommand):
    help = (
        "Test the shuffle and secrets.randbelow: card-by-position, first card and first pair "
        "chi-squares over N decks, frequency, serial and runs tests on the raw draws; the "
        "battery at 99% confidence (docs/fairness.md). The result is stored as an RngCheck."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--shuffles", type=int, help=f"decks to shuffle ({QUICK_SHUFFLES})")
        parser.add_argument(
            "--raw-draws", type=int, help=f"draws of randbelow(52) ({QUICK_RAW_DRAWS})"
        )
        parser.add_argument(
            "--long",
            action="store_true",
            help=f"the long form: {LONG_SHUFFLES:,} shuffles, {LONG_RAW_DRAWS:,} raw draws",
        )
        parser.add_argument("--json", action="store_true", help="print the result as JSON")
        parser.add_argument(
            "--dieharder", action="store_true", help="also run dieharder (Debian package)"
        )

    def handle(self, *args, **options) -> None:
        if options["long"] and (options["shuffles"] or options["raw_draws"]):
            raise CommandError("--long sets its own sizes; give it no --shuffles or --raw-draws")
        if options["long"]:
            form, shuffles, raw_draws = RngCheck.Form.LONG, LONG_SHUFFLES, LONG_RAW_DRAWS
        elif options["shuffles"] is None and options["raw_draws"] is None:
            form, shuffles, raw_draws = RngCheck.Form.QUICK, QUICK_SHUFFLES, QUICK_RAW_DRAWS
        else:
            form = RngCheck.Form.CUSTOM
            shuffles = options["shuffles"] or QUICK_SHUFFLES
            raw_draws = options["raw_draws"] or QUICK_RAW_DRAWS
        try:
            check = rng_check_run(
                shuffles=shuffles, raw_draws=raw_draws, form=form, dieharder=options["dieharder"]
            )
        except RngCheckError as error:
            raise CommandError(str(error)) from error
        if options["json"]:
            self.stdout.write(json.dumps(rng_check_as_dict(check), indent=2))
        else:
            self._print(check)
        if not check.passed:
            raise CommandError(f"the RNG check FAILED (RngCheck {check.pk})")

    def _print(self, check: RngCheck) -> None:
        threshold = check.statistics[0]["threshold"]
        self.stdout.write(
            f"RNG check {check.pk} ({check.form}): {check.shuffles:,} shuffles and "
            f"{check.raw_draws:,} draws of randbelow(52) from {check.generator}, "
            f"{check.seconds:.1f} s."
        )
        self.stdout.write(
            f"Battery at {1 - check.alpha:.0%} confidence: each of {len(check.statistics)} "
            f"statistics needs p >= {threshold:.6f} (Bonferroni); one below is measured again "
            "on fresh data and fails only if it is below again."
        )
        for s in check.statistics:
            df = f"df {s['df']}" if s["df"] is not None else f"expected {s['expected']:,.1f}"
            p_values = " then ".join(f"{p:.6g}" for p in s["p_values"])
            verdict = "pass" if s["passed"] else "FAIL"
            self.stdout.write(
                f"  {verdict:4}  {s['name']:17} {s['statistic']:>14,.2f}  {df:18} p = {p_values}"
                f"  ({s['says']})"
            )
        if check.dieharder:
            self.stdout.write("dieharder:")
            for line in check.dieharder.splitlines():
                self.stdout.write(f"  {line}")
        if check.passed:
            self.stdout.write(self.style.SUCCESS("The RNG check passed."))


def rng_check_as_dict(check: RngCheck) -> dict:
    return {
        "id": check.pk,
        "form": check.form,
        "generator": check.generator,
        "passed": check.passed,
        "shuffles": check.shuffles,
        "raw_draws": check.raw_draws,
        "alpha": check.alpha,
        "statistics": check.statistics,
        "dieharder": check.dieharder,
        "started_at": check.started_at.isoformat(),
        "seconds": check.seconds,
    }
