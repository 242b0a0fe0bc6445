"""Calendar hours, defined once: a year of 8,760 h (365 days) and a month of a twelfth of
it, 730 h. Steady work is stated per month, lives and depreciation run in years, and the
interruption bands AWS publishes are shares of instances reclaimed a month."""

HOURS_PER_DAY = 24.0
HOURS_PER_YEAR = 365 * HOURS_PER_DAY
HOURS_PER_MONTH = HOURS_PER_YEAR / 12
