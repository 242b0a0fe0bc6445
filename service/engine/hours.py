"""Calendar hours, defined once: a year of 8,760 h (365 days) and a month of a twelfth of
it, 730 h. Steady work is stated per month, lives and depreciation run in years, and the
interruption bands AWS publishes are shares of instances reclaimed a month. The longest
time any question spans is the longest useful life it may state: past it no bought card
runs, so no deadline, steady work or implicit calendar is longer."""

HOURS_PER_DAY = 24.0
HOURS_PER_YEAR = 365 * HOURS_PER_DAY
HOURS_PER_MONTH = HOURS_PER_YEAR / 12
LONGEST_YEARS = 15
LONGEST_HOURS = LONGEST_YEARS * HOURS_PER_YEAR
