"""Calendar hours, defined once: a year of 8,760 h (365 days) and a month of a twelfth of
it, 730 h. Providers sell committed terms in months and years (AWS: "1 year = 365 days";
Azure's reservation totals are per 8,760 h year), steady work is stated per month, lives and
depreciation run in years, and the interruption bands AWS publishes are shares of instances
reclaimed a month. Pricing owns it because a term's hours are part of what an offer is; the
engine reads the same figures (service/engine/hours.py)."""

HOURS_PER_DAY = 24.0
HOURS_PER_YEAR = 365 * HOURS_PER_DAY
HOURS_PER_MONTH = HOURS_PER_YEAR / 12
