"""The longest time any question spans, on the calendar pricing defines (pricing/hours.py):
the longest useful life it may state. Past it no bought card runs, so no deadline, steady
work or implicit calendar is longer."""

from pricing.hours import HOURS_PER_DAY, HOURS_PER_MONTH, HOURS_PER_YEAR

__all__ = ["HOURS_PER_DAY", "HOURS_PER_MONTH", "HOURS_PER_YEAR", "LONGEST_HOURS", "LONGEST_YEARS"]

LONGEST_YEARS = 15
LONGEST_HOURS = LONGEST_YEARS * HOURS_PER_YEAR
