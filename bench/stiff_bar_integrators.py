#!/usr/bin/env python3
"""Which explicit Runge-Kutta step would let a reduced model of the stiff bar pendulum run 5x?

The goals benchmark's stiff bar carrying a pendulum (bench/models/textbook/stiff_bar_pendulum.json:
a 0.8 m, 3 kg bar hinged at a wall, held at its tip A by a 2e5 N/m spring, 50 Hz; a 0.5 m, 1 kg
pendulum from A, 0.86 Hz) written in its two angles (theta of the bar, phi of the pendulum) and
integrated by classic RK4 and by Dormand and Prince's fifth-order tableau at fixed steps, against
Radau IIA at rtol 1e-11, under sines of the push at P in and beyond the benchmark's design. The
error is the benchmark's: relative RMS of each tracked point (A, P) against its own motion, the
worst point. SINDy's held-out check picks RK4 at 1.25 ms there (RK4 at 2.5 ms: 4.8 %), four
evaluations of the equations per 1.25 ms; the question is whether a higher order at a longer step
costs fewer evaluations for the same error, and whether an exponential integrator does: ETDRK4
(Cox and Matthews, J. Comput. Phys. 176, 2002; in the phi-function form of Hochbruck and Ostermann,
Acta Numerica 2010) with the linear part L the Jacobian of the equations by forward differences,
taken every step, every fourth step, or once at the start, and phi_k(hL) from the exponential of
one block matrix (Saad 1992). ETDRK4 evaluates the equations four times a step, as RK4 does.

  /usr/bin/python3 bench/stiff_bar_integrators.py     (numpy and scipy; under a minute)
"""
import numpy as np
from scipy.integrate import solve_ivp
from scipy.linalg import expm
BAR, PENDULUM, BAR_MASS, BOB_MASS, GRAVITY = 0.8, 0.5, 3.0, 1.0, 9.81  # m, m, kg, kg, m/s^2
STIFFNESS, DAMPING, FREE_LENGTH = 2e5, 50.0, 0.5  # N/m, N s/m, m
SPRING_TOP = np.array([0.8, 0.5])  # S in the x-z plane [m]
# T = 1/2 M11 theta'^2 + M12 sin(phi - theta) theta' phi' + 1/2 M22 phi'^2
M11 = BAR_MASS * BAR**2 / 3 + BOB_MASS * BAR**2
M22 = BOB_MASS * PENDULUM**2 / 3
M12 = BOB_MASS * BAR * PENDULUM / 2


def rhs(t, y, amp, f):
    """(theta', phi', theta'', phi'') of the bar's and the pendulum's angles under the push
    amp sin(2 pi f t) along x at P."""
    th, ph, thd, phd = y
    tip = BAR * np.array([np.cos(th), np.sin(th)])
    tip_d = BAR * np.array([-np.sin(th), np.cos(th)])
    spring = tip - SPRING_TOP
    length = np.linalg.norm(spring)
    dl = spring @ tip_d / length  # d length / d theta
    push = amp * np.sin(2 * np.pi * f * t)
    q_th = (-(BAR_MASS * GRAVITY * BAR / 2 + BOB_MASS * GRAVITY * BAR) * np.cos(th)
            - (STIFFNESS * (length - FREE_LENGTH) + DAMPING * dl * thd) * dl - push * BAR * np.sin(th))
    q_ph = -BOB_MASS * GRAVITY * PENDULUM / 2 * np.sin(ph) + push * PENDULUM * np.cos(ph)
    s, c = np.sin(ph - th), np.cos(ph - th)
    mass = np.array([[M11, M12 * s], [M12 * s, M22]])
    acc = np.linalg.solve(mass, [q_th - M12 * c * phd**2, q_ph + M12 * c * thd**2])
    return np.array([thd, phd, acc[0], acc[1]])


RK4 = dict(A=[[], [.5], [0, .5], [0, 0, 1]], b=[1 / 6, 1 / 3, 1 / 3, 1 / 6], c=[0, .5, .5, 1])
DP5 = dict(A=[[], [1 / 5], [3 / 40, 9 / 40], [44 / 45, -56 / 15, 32 / 9],
              [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
              [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656]],
           b=[35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84], c=[0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1])


def fixed(tableau, h, T, y0, amp, f, out=0.005):
    """An explicit Runge-Kutta tableau at the fixed step h, sampled every `out`."""
    y = np.array(y0, float)
    t = 0.0
    every = int(round(out / h)) if h < out else 1
    ys = [y.copy()]
    for i in range(int(round(T / h))):
        ks = []
        for j, row in enumerate(tableau['A']):
            yi = y + h * sum(a * k for a, k in zip(row, ks)) if row else y
            ks.append(rhs(t + tableau['c'][j] * h, yi, amp, f))
        y = y + h * sum(b * k for b, k in zip(tableau['b'], ks))
        t += h
        if (i + 1) % every == 0:
            ys.append(y.copy())
    return np.array(ys)


def points(Y):
    """A and P in the x-z plane, per sample."""
    th, ph = Y[:, 0], Y[:, 1]
    ax, az = BAR * np.cos(th), BAR * np.sin(th)
    return np.stack([ax, az, ax + PENDULUM * np.sin(ph), az - PENDULUM * np.cos(ph)], 1)


def err(Y, R):
    """The worst point's relative RMS error [%], each against its own motion about its mean."""
    P, Q = points(Y), points(R)
    e = []
    for (i, j) in [(0, 1), (2, 3)]:
        num = np.sqrt(np.mean((P[:, i] - Q[:, i])**2 + (P[:, j] - Q[:, j])**2))
        den = np.sqrt(np.mean((Q[:, i] - Q[:, i].mean())**2 + (Q[:, j] - Q[:, j].mean())**2))
        e.append(num / den)
    return 100 * max(e)

def jacobian(t, y, amp, f, eps=1e-7):
    f0 = rhs(t, y, amp, f)
    J = np.zeros((4, 4))
    for i in range(4):
        d = np.zeros(4)
        d[i] = eps * max(1.0, abs(y[i]))
        J[:, i] = (rhs(t, y + d, amp, f) - f0) / d[i]
    return J


def phis(L, h):
    """e^{hL}, phi_1(hL), phi_2(hL), phi_3(hL): the first block row of exp([[hL, I, 0, 0], [0, 0, I, 0],
    [0, 0, 0, I], [0, 0, 0, 0]])."""
    n = L.shape[0]
    B = np.zeros((4 * n, 4 * n))
    B[:n, :n] = h * L
    for k in range(3):
        B[n * k:n * (k + 1), n * (k + 1):n * (k + 2)] = np.eye(n)
    E = expm(B)
    return [E[:n, n * k:n * (k + 1)] for k in range(4)]


def etdrk4(h, T, y0, amp, f, refresh, out=0.005):
    """ETDRK4 at the fixed step h, L the Jacobian at the start of every `refresh`-th step."""
    y = np.array(y0, float)
    t = 0.0
    every = max(1, int(round(out / h)))
    ys = [y.copy()]
    for i in range(int(round(T / h))):
        if i % refresh == 0:
            L = jacobian(t, y, amp, f)
            E, p1, p2, p3 = phis(L, h)
            E2, q1, _, _ = phis(L, h / 2)
        N = lambda x, tt: rhs(tt, x, amp, f) - L @ x
        Nu = N(y, t)
        a = E2 @ y + (h / 2) * q1 @ Nu
        Na = N(a, t + h / 2)
        b = E2 @ y + (h / 2) * q1 @ Na
        Nb = N(b, t + h / 2)
        c = E2 @ a + (h / 2) * q1 @ (2 * Nb - Nu)
        Nc = N(c, t + h)
        y = E @ y + h * ((p1 - 3 * p2 + 4 * p3) @ Nu + 2 * (p2 - 2 * p3) @ (Na + Nb) + (4 * p3 - p2) @ Nc)
        t += h
        if (i + 1) % every == 0:
            ys.append(y.copy())
    return np.array(ys)


T = 5.0
for amp, f in [(4, 0.9), (4, 0.6), (2.5, 1.2), (4, 2.0), (1, 0.4), (3, 0.8)]:
    y0 = [0, 0, 0, 0]
    ref = solve_ivp(rhs, (0, T), y0, method='Radau', rtol=1e-11, atol=1e-13,
                    t_eval=np.arange(0, T + 1e-9, 0.005), args=(amp, f)).y.T
    r = []
    for name, tableau, h in [('rk4', RK4, 0.00125), ('rk4', RK4, 0.0025), ('rk4', RK4, 0.005),
                             ('dp5', DP5, 0.0025), ('dp5', DP5, 0.005)]:
        r.append(f"{name}@{h * 1e3:g}ms {err(fixed(tableau, h, T, y0, amp, f), ref):.3g}%")
    for refresh, label in [(1, 'J every step'), (4, 'J every 4th'), (10**9, 'J once')]:
        r.append(f"etdrk4@5ms {label} {err(etdrk4(0.005, T, y0, amp, f, refresh), ref):.3g}%")
    print(f"amp {amp} f {f} max|phi| {np.max(np.abs(ref[:, 1])):.2f}:", "; ".join(r), flush=True)
