"""Suggested posting slots: the weekday/hour pairs where a channel's posts
did clearly better than its others (docs/analytics.md says it in words).

A pair is suggested when all of these hold:

1. at least MIN_POSTS (5) of its posts have an engagement (impressions);
2. its posts' mean engagement is at least MIN_LIFT (10 %) above the
   channel's mean over the range (every measured post counted once);
3. that it is above the channel's other posts is clear at 95 % confidence,
   after allowing for how many pairs were compared: Welch's one-sided
   t-test of the pair's posts against the rest of the channel's, at level
   0.05 / k (Bonferroni), k being the number of pairs with 5 posts or more.
   Put as an interval: the lower bound of the 1 - 0.05/k confidence
   interval of (pair's mean - rest's mean) is above 0.

Of those, the three with the highest lower bound are given, best first.
Rule 2 keeps a tiny but certain difference from becoming a slot; rule 3
keeps one lucky post, or the best of 168 noisy hours, from becoming one:
comparing many hours at 95 % each would find about one in twenty "better"
by chance.

Student's t quantile is computed here (the regularized incomplete beta
function by its continued fraction, then bisection), so that no numerical
library is needed for one number.
"""

import math

MIN_POSTS = 5
MIN_LIFT = 0.10
ALPHA = 0.05
LIMIT = 3
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


class Sample:
    """n, mean and variance of engagements, from their count, sum and sum of squares."""

    def __init__(self, n, total, squares):
        self.n = n
        self.mean = total / n if n else None
        # rounding can take a sum of squares a hair below the square of the sum
        self.variance = max(0.0, (squares - total * total / n) / (n - 1)) if n > 1 else None


def suggest(cells, channel_mean, existing=()):
    """Up to LIMIT suggestions, best first: [{day, time, engagement, posts,
    lift, in_slots}] from `cells` [{weekday, hour, measured, engagement_sum,
    engagement_squares}] (the channel's, over the range) and the channel's
    mean engagement. `existing`: the channel's slots ({day, time}), marked."""
    if not channel_mean:
        return []
    n_all = sum(c["measured"] for c in cells)
    total_all = sum(c["engagement_sum"] or 0.0 for c in cells)
    squares_all = sum(c["engagement_squares"] or 0.0 for c in cells)
    candidates = [c for c in cells if c["measured"] >= MIN_POSTS and n_all - c["measured"] >= 2]
    if not candidates:
        return []
    level = 1 - ALPHA / len(candidates)
    found = []
    for cell in candidates:
        inside = Sample(cell["measured"], cell["engagement_sum"], cell["engagement_squares"])
        rest = Sample(
            n_all - cell["measured"],
            total_all - cell["engagement_sum"],
            squares_all - cell["engagement_squares"],
        )
        if inside.mean < channel_mean * (1 + MIN_LIFT):
            continue
        low = lower_bound(inside, rest, level)
        if low > 0:
            found.append((low, cell, inside))
    found.sort(key=lambda f: (-f[0], f[1]["weekday"], f[1]["hour"]))
    taken = {(s["day"], s["time"]) for s in existing}
    return [
        {
            "day": DAYS[cell["weekday"]],
            "time": f"{cell['hour']:02d}:00",
            "engagement": inside.mean,
            "posts": inside.n,
            "lift": inside.mean / channel_mean - 1,
            "in_slots": (DAYS[cell["weekday"]], f"{cell['hour']:02d}:00") in taken,
        }
        for _, cell, inside in found[:LIMIT]
    ]


def lower_bound(inside, rest, level):
    """The lower bound of the one-sided `level` confidence interval of
    inside.mean - rest.mean (Welch: unequal variances, Welch-Satterthwaite
    degrees of freedom)."""
    difference = inside.mean - rest.mean
    a, b = inside.variance / inside.n, rest.variance / rest.n
    error = math.sqrt(a + b)
    if error == 0:
        return difference
    freedom = (a + b) ** 2 / (a * a / (inside.n - 1) + b * b / (rest.n - 1))
    return difference - t_quantile(level, freedom) * error


def t_quantile(p, freedom):
    """The p-quantile (p > 0.5) of Student's t distribution with `freedom`
    degrees of freedom."""
    low, high = 0.0, 1.0
    while t_cdf(high, freedom) < p:
        high *= 2
        if high > 1e12:
            return high
    for _ in range(200):
        middle = (low + high) / 2
        if t_cdf(middle, freedom) < p:
            low = middle
        else:
            high = middle
        if high - low <= 1e-12 * high:
            break
    return (low + high) / 2


def t_cdf(t, freedom):
    """P(T <= t) for t >= 0."""
    x = freedom / (freedom + t * t)
    return 1 - 0.5 * incomplete_beta(freedom / 2, 0.5, x)


def incomplete_beta(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return front * _continued_fraction(a, b, x) / a
    return 1 - front * _continued_fraction(b, a, 1 - x) / b


def _continued_fraction(a, b, x):
    """Lentz's method for the incomplete beta's continued fraction."""
    tiny, epsilon = 1e-300, 1e-15
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 500):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1) < epsilon:
            break
    return result
