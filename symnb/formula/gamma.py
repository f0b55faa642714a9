"""The gamma function family as formula functions: ``lgamma``, ``tgamma``,
``digamma`` and ``trigamma``.

Users paste them from PyTorch (``torch.lgamma``, ``torch.digamma``), SciPy
(``gammaln``, ``gamma``, ``psi``), ``math`` (``lgamma``, ``gamma``) and JAX: a Student-t
likelihood's normaliser ``lgamma((nu + 1)/2) - lgamma(nu/2)``, a Poisson likelihood's
``log(y!) = lgamma(y + 1)``.

They are symnb's own SymPy functions, not SymPy's ``loggamma``/``gamma``/``polygamma``:

* ``lgamma(u)`` is log|Gamma(u)|, real for every real u, as C's ``lgamma``, PyTorch's
  and SciPy's ``gammaln`` (SymPy's ``loggamma`` is complex for u < 0);
* the derivatives are these functions again: lgamma' = digamma, tgamma' =
  tgamma*digamma, digamma' = trigamma (trigamma's own derivative is SymPy's
  ``polygamma(2, u)``, which no backend prints: a formula needs first derivatives only);
* a number argument gives its value (30 digits), except at a pole, which stays a call
  (the parser then refuses ``lgamma(0)`` as a constant that is not finite).

Values at the poles, as SciPy and PyTorch give them (every backend alike): ``lgamma``
+inf at 0 and the negative integers; ``tgamma`` +-inf at +-0 and NaN at the negative
integers; ``digamma`` -inf at +0, +inf at -0, NaN at the negative integers; ``trigamma``
+inf at 0 and the negative integers. At -inf: lgamma +inf, tgamma, digamma and
trigamma NaN.
"""

from __future__ import annotations

import mpmath
import sympy as sp


def _number_value(arg: sp.Expr, fn) -> sp.Expr | None:
    """fn(arg) as a 30-digit Float for a real number arg, None at a pole or where the
    value is not a finite real."""
    if not (arg.is_Number and arg.is_finite):
        return None
    if arg.is_integer and arg <= 0:
        return None
    with mpmath.workdps(40):
        try:
            value = fn(mpmath.mpf(sp.Float(arg, 40)._mpf_))
        except (ValueError, ZeroDivisionError, OverflowError):
            return None
        if isinstance(value, mpmath.mpc) or not mpmath.isfinite(value):
            return None
        return sp.Float(value, 30)


#: From here on the mpmath references sum the asymptotic series themselves: mpmath's
#: digamma took 8.6 s for one analysis (u up to 1e38 at up to 1500 digits).
_LARGE = 1e6


def _bernoulli_sum(u, term) -> object:
    """sum_k term(k, B_2k) for k = 1..K, K enough for the working precision at u."""
    k_max = int(mpmath.mp.dps / (2 * mpmath.log10(u))) + 2
    return mpmath.fsum(term(k, mpmath.bernoulli(2 * k)) for k in range(1, k_max + 1))


def mp_lgamma(u):
    """log|Gamma(u)| in mpmath (its loggamma is complex for u < 0)."""
    if u < 0:  # reflection: |Gamma(u)| = pi/(|sin(pi u)| Gamma(1 - u))
        return mpmath.log(mpmath.pi / abs(mpmath.sinpi(u))) - mp_lgamma(1 - u)
    if mpmath.isfinite(u) and u > _LARGE:  # Stirling's series
        tail = _bernoulli_sum(
            u, lambda k, b: b / (2 * k * (2 * k - 1) * u ** (2 * k - 1))
        )
        return (u - 0.5) * mpmath.log(u) - u + mpmath.log(2 * mpmath.pi) / 2 + tail
    return mpmath.loggamma(u)


def mp_tgamma(u):
    """Gamma(u) in mpmath, by reflection for u < 0."""
    if u < 0:
        return mpmath.pi / (mpmath.sinpi(u) * mpmath.gamma(1 - u))
    return mpmath.gamma(u)


def mp_digamma(u):
    """psi(u) in mpmath, by reflection for u < 0 (mpmath's own took minutes at
    u = -1e14 - 0.5)."""
    if u < 0:
        return mp_digamma(1 - u) - mpmath.pi * mpmath.cospi(u) / mpmath.sinpi(u)
    if mpmath.isfinite(u) and u > _LARGE:
        tail = _bernoulli_sum(u, lambda k, b: b / (2 * k * u ** (2 * k)))
        return mpmath.log(u) - 1 / (2 * u) - tail
    return mpmath.digamma(u)


def mp_trigamma(u):
    """psi'(u) in mpmath, by reflection for u < 0."""
    if u < 0:
        return (mpmath.pi / mpmath.sinpi(u)) ** 2 - mp_trigamma(1 - u)
    if mpmath.isfinite(u) and u > _LARGE:
        tail = _bernoulli_sum(u, lambda k, b: b / u ** (2 * k + 1))
        return 1 / u + 1 / (2 * u**2) + tail
    return mpmath.psi(1, u)


class _GammaFamily(sp.Function):
    """One real argument; real where the argument is real."""

    nargs = 1
    _mp = None  # the mpmath function of the value
    _latex_head = ""

    @classmethod
    def eval(cls, arg):
        return _number_value(arg, cls._mp)

    def _eval_is_real(self):
        return self.args[0].is_real

    def _eval_evalf(self, prec):
        value = _number_value(self.args[0].evalf(prec), type(self)._mp)
        return None if value is None else value._eval_evalf(prec)

    def _latex(self, printer, exp=None):
        power = "" if exp is None else f"^{{{exp}}}"
        arg = printer._print(self.args[0])
        return rf"{self._latex_head}{power}\left({arg}\right)"


class lgamma(_GammaFamily):
    """log|Gamma(u)| (C's ``lgamma``, SciPy's ``gammaln``, ``torch.lgamma``)."""

    _mp = staticmethod(mp_lgamma)
    _latex_head = r"\ln\Gamma"

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return digamma(self.args[0])

    def _latex(self, printer, exp=None):
        arg = printer._print(self.args[0])
        text = rf"\ln\Gamma\left({arg}\right)"
        return text if exp is None else rf"\left({text}\right)^{{{exp}}}"


class tgamma(_GammaFamily):
    """Gamma(u) (C's ``tgamma``, ``math.gamma``, SciPy's ``gamma``)."""

    _mp = staticmethod(mp_tgamma)
    _latex_head = r"\Gamma"

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return tgamma(self.args[0]) * digamma(self.args[0])


class digamma(_GammaFamily):
    """psi(u) = Gamma'(u)/Gamma(u) (``torch.digamma``, SciPy's ``psi``)."""

    _mp = staticmethod(mp_digamma)
    _latex_head = r"\psi"

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return trigamma(self.args[0])


class trigamma(_GammaFamily):
    """psi'(u) (``torch.polygamma(1, u)``, SciPy's ``polygamma(1, u)``)."""

    _mp = staticmethod(mp_trigamma)
    _latex_head = r"\psi_1"

    def fdiff(self, argindex: int = 1) -> sp.Expr:
        return sp.polygamma(2, self.args[0])


#: name -> function, for the formula's function table
GAMMA_FUNCTIONS = {
    "lgamma": lgamma,
    "tgamma": tgamma,
    "digamma": digamma,
    "trigamma": trigamma,
}

__all__ = [
    "GAMMA_FUNCTIONS",
    "digamma",
    "lgamma",
    "mp_digamma",
    "mp_lgamma",
    "mp_tgamma",
    "mp_trigamma",
    "tgamma",
    "trigamma",
]
