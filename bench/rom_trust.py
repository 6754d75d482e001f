#!/usr/bin/env python3
"""Goals benchmark on mechanisms nobody tuned the methods to: errors, silent misses, false alarms.

Every method is trained with its defaults on a Latin-hypercube design over the amplitude and
frequency of a sine load (the guide's route: sweep, merge, train), then run on
  - two of its own design points (training runs: no warning may come);
  - three other sine design points inside the design ranges (unseen, same kind);
  - four loads of other waveforms whose force range and frequency content lie inside the design:
    a step (rising over half a period of the design's highest frequency), a half-sine bump, a chirp
    over the design's band and a sum of two sines (unseen, other kinds);
  - a sharp step (rising in 50 ms: content far above the design's band), beyond the design: a
    warning there is due, and a miss must not be silent.
Error: relative RMSE as `mbdrom-cli compare` defines it, the worst tracked point. A run more than
5 % off is a *miss*; a miss is *silent* when the reduced run printed no warning. A run at most
2.5 % off that warns is a *false alarm*. When a run states a bound ("inside, expect <= X %"),
the bound *covers* the run when its error is at most X. Speed: the median of five `rom-simulate
--benchmark` runs on the chirp (the reduced model at its own step against the full model's default
run, one core).

The mechanisms are written from textbook descriptions in bench/models/textbook (a vibration
absorber with two coupled resonances, a bar on a stiff spring carrying a pendulum, a slider-crank in
millimetre geometry; their descriptions say which book), and the bundled MacPherson example.

  python3 bench/rom_trust.py [--cli build/release/app/cli/mbdrom-cli] [--work DIR]
                             [--mechanisms NAME,...] [--check-set | --fresh-set | --fourth-set |
                             --fifth-set | --sixth-set | --seventh-set | --eighth-set | --ninth-set |
                             --tenth-set | --eleventh-set | --twelfth-set | --thirteenth-set |
                             --fourteenth-set | --fifteenth-set | --sixteenth-set]
                             [--methods pod,ae,pca,node,sindy] [--train-args "ARGS"] [--quick]
                             [--check [--must-train M,...]] [--json FILE]
--check-set, --fresh-set, --fourth-set, --fifth-set, --sixth-set, --seventh-set, --eighth-set,
--ninth-set, --tenth-set, --eleventh-set, --twelfth-set, --thirteenth-set, --fourteenth-set, --fifteenth-set,
--sixteenth-set: the second, ..., sixteenth set of mechanisms (below, kept apart) instead of the first.
Every command runs on core 0 (BENCH_CORE=N: on core N; BENCH_PIN=0: on any). Two runs of this script at
once need BENCH_CORE=0 and BENCH_CORE=1, or their speed-ups are measured on one shared core.
--train-args: more options for every method's `train` (e.g. "--activation softplus"), to try settings.
--quick: a scaled-down design (6 runs, shorter runs, fewer unseen loads) for the CI test.
--check: exit 1 when a run (unseen, beyond the design, or a rerun of a training run) misses silently, or a
training run the model follows within 2.5 % warns
(beyond what a model found wrong or not validated says on every run); with --must-train METHODS, also
when one of those methods refuses to train.
"""
import argparse
import copy
import csv
import json
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "models", "textbook")

# name: model file, the load the design varies, its amplitude and frequency ranges, run length,
# output interval, POD's mode count (its required setting: the degrees of freedom).
MECHANISMS = {
    "vibration_absorber": dict(file="vibration_absorber.json", load="shaker", amplitude=(5.0, 20.0),
                               frequency=(1.5, 5.0), t_end=4.0, output_dt=0.005, nr=2),
    "stiff_bar_pendulum": dict(file="stiff_bar_pendulum.json", load="push", amplitude=(1.0, 4.0),
                               frequency=(0.4, 2.0), t_end=5.0, output_dt=0.005, nr=2),
    "mm_slider_crank": dict(file="mm_slider_crank.json", load="motor", amplitude=(3e-6, 1.2e-5),
                            frequency=(2.0, 8.0), t_end=3.0, output_dt=0.005, nr=1),
    # The bundled example the methods' defaults were tuned on, for comparison: the tyre force
    # 2000 N plus a sine of the design (the unseen loads keep the 2000 N).
    "macpherson": dict(file="../../../resources/examples/macpherson.json", load="tyre", amplitude=(800.0, 1500.0),
                       frequency=(0.8, 2.5), t_end=2.0, output_dt=0.005, nr=1, offset=2000.0),
}
# A second set, kept apart: the rates of the trust signals (false alarms, bound coverage) are
# checked here after any change made while looking at the figures of the set above.
CHECK_SET = {
    "pendulum_carriage": dict(file="../../../resources/examples/pendulum_carriage.json", load="push",
                              amplitude=(10.0, 30.0), frequency=(0.3, 1.2), t_end=6.0, output_dt=0.005, nr=2),
    "slider_crank": dict(file="../../../resources/examples/slider_crank.json", load="motor", amplitude=(1.0, 3.0),
                         frequency=(0.5, 2.0), t_end=4.0, output_dt=0.005, nr=1, case="drive"),
    # Added on 2026-12-01, after the methods' defaults and the bound's factor were set: a quarter-car
    # (resonances at 1.2 and 11.3 Hz, a stiff tyre, gravity preload) and a crank-rocker four-bar on a
    # spring (a closed loop of nonlinear constraints, 2.5 Hz), both written from textbook descriptions.
    "quarter_car": dict(file="quarter_car.json", load="road", amplitude=(200.0, 800.0), frequency=(0.8, 12.0),
                        t_end=4.0, output_dt=0.005, nr=2),
    "spring_four_bar": dict(file="spring_four_bar.json", load="push", amplitude=(0.5, 1.5),
                            frequency=(0.75, 3.75), t_end=5.0, output_dt=0.005, nr=1),
    # An elastic pendulum (swing 0.70 Hz, spring 2.25 Hz, nonlinearly coupled), added the same day.
    "elastic_pendulum": dict(file="elastic_pendulum.json", load="push", amplitude=(0.1, 0.4),
                             frequency=(0.35, 1.05), t_end=6.0, output_dt=0.005, nr=2),
}
# A third set, added on 2026-12-01 after the held-step probe was designed, so it is kept apart from
# every tuning so far: a double pendulum of two uniform bars (resonances 0.60 and 1.62 Hz, both in
# the design's band) and an inverted pendulum held upright by two springs (0.85 Hz, gravity softening
# it), both written from textbook descriptions.
FRESH_SET = {
    "double_pendulum": dict(file="double_pendulum.json", load="push", amplitude=(0.2, 0.6),
                            frequency=(0.4, 2.0), t_end=5.0, output_dt=0.005, nr=2),
    "inverted_pendulum": dict(file="inverted_pendulum.json", load="push", amplitude=(0.2, 0.6),
                              frequency=(0.3, 1.3), t_end=6.0, output_dt=0.005, nr=1),
}
# A fourth set, added on 2026-12-02 after the second tries for a bound above the goal and the bound
# beyond the model's own step, kept apart from every tuning so far and the first with more than two
# degrees of freedom: a triple pendulum of three bars (0.55, 1.37 and 2.58 Hz, all in the band) and a
# half-car (bounce 1.18 Hz, pitch 1.53 Hz, wheel hops 11.2 and 12.0 Hz), both written from textbook
# descriptions.
FOURTH_SET = {
    "triple_pendulum": dict(file="triple_pendulum.json", load="push", amplitude=(0.15, 0.45),
                            frequency=(0.4, 3.0), t_end=6.0, output_dt=0.005, nr=3),
    "half_car": dict(file="half_car.json", load="road", amplitude=(400.0, 1600.0), frequency=(0.8, 12.0),
                     t_end=4.0, output_dt=0.005, nr=4),
}
# A fifth set, added on 2026-12-02 from two mechanisms a helper wrote when trying the tool as a new
# user: a spring pendulum in a plane (swing 0.64 Hz; axial 1.59 Hz, near twice the swing, so a swing
# driven at 0.8 Hz drives the spring at its resonance) and a chain of three masses on four springs
# (1.22, 2.25 and 2.94 Hz). The spring pendulum's two silent misses (SINDy, local PCA, sines near
# 0.82 Hz) led to the confirmation of held-out figures on other runs: it is no independent test of
# that change; the chain is.
FIFTH_SET = {
    "spring_pendulum": dict(file="spring_pendulum.json", load="push", amplitude=(0.5, 2.0),
                            frequency=(0.4, 2.0), t_end=5.0, output_dt=0.005, nr=2),
    "spring_chain": dict(file="spring_chain.json", load="push", amplitude=(2.0, 8.0),
                         frequency=(0.8, 3.5), t_end=5.0, output_dt=0.005, nr=3),
}
# A sixth set, written on 2026-12-03 by a helper after the confirmation of held-out figures and the
# judging of held-out runs that leave their model's data were settled on the sets above, to test
# them: two equal pendulums hung from one cart on a spring in millimetre geometry (1.72, 2.49 and
# 3.76 Hz, lightly damped) and a 3 m beam bouncing and pitching on two hardening springs (2.47 and
# 4.55 Hz).
SIXTH_SET = {
    "coupled_pendulums_cart": dict(file="coupled_pendulums_cart.json", load="push", amplitude=(0.0015, 0.005),
                                   frequency=(1.2, 4.2), t_end=5.0, output_dt=0.005, nr=3),
    "bounce_pitch_beam": dict(file="bounce_pitch_beam.json", load="push", amplitude=(50.0, 200.0),
                              frequency=(1.5, 5.5), t_end=4.0, output_dt=0.005, nr=2),
}
# A seventh set, added on 2026-12-05 after SINDy's linearly implicit steps (ROS2) were tuned on the
# stiff bar above, to test them: two stiff mechanisms of textbooks, Spong's arm with an elastic joint
# (joint 60.4 Hz, link 0.68 Hz, driven by the motor's torque) and the stiff spring pendulum of Hairer,
# Lubich and Wanner (axial 40.0 Hz, swing 0.70 Hz).
SEVENTH_SET = {
    "flexible_joint_arm": dict(file="flexible_joint_arm.json", load="motor", amplitude=(0.05, 0.25),
                               frequency=(0.3, 2.0), t_end=6.0, output_dt=0.005, nr=2),
    "stiff_spring_pendulum": dict(file="stiff_spring_pendulum.json", load="push", amplitude=(0.05, 0.2),
                                  frequency=(0.3, 1.6), t_end=6.0, output_dt=0.005, nr=2),
}
# An eighth set, written on 2026-12-06 by a helper from textbook descriptions after SINDy's
# spring-damper geometry terms and the auto-encoder's kept evaluators, to test them: an overhead crane
# in metres and tonnes (a 2 t trolley held by its drive's position loop, a 5 t payload on a 6 m rope;
# sway 0.174 Hz, trolley 0.657 Hz; drive forces in kN, motion of metres) and a trifilar suspension, a
# disk platform hung by three strings turning through large angles in space (y sway 0.498 Hz, yaw
# 0.705 Hz, x sway on a centring spring 0.869 Hz).
EIGHTH_SET = {
    "overhead_crane": dict(file="overhead_crane.json", load="drive", amplitude=(2000.0, 8000.0),
                           frequency=(0.12, 1.0), t_end=6.0, output_dt=0.005, nr=2),
    "trifilar_platform": dict(file="trifilar_platform.json", load="push", amplitude=(1.25, 5.0),
                              frequency=(0.35, 1.1), t_end=6.0, output_dt=0.005, nr=3),
}
# A ninth set, written on 2026-12-06 by a helper from textbook descriptions after the auto-encoder's
# chart past its training data, to test it and the trust signals: Rao's torsional drive train, a motor
# rotor held by its position loop driving a load rotor twice its inertia through a flexible coupling
# (1.490 and 4.807 Hz; torques of 10-40 mN m turn the rotors up to 58 deg: rotating unit vectors), and
# a Furuta pendulum held near its hanging position (0.882 Hz, the pendulum swinging up to 53 deg across
# a turning arm; 2.350 Hz, arm and pendulum opposed, above the band, which stops at 1.8 Hz because the
# design's 0.1 N m at 2 Hz drives this softening mode into a jump).
NINTH_SET = {
    "torsional_drive_train": dict(file="torsional_drive_train.json", load="torque", amplitude=(0.01, 0.04),
                                  frequency=(1.0, 6.0), t_end=5.0, output_dt=0.005, nr=2),
    "furuta_pendulum": dict(file="furuta_pendulum.json", load="motor", amplitude=(0.025, 0.1),
                            frequency=(0.5, 1.8), t_end=6.0, output_dt=0.005, nr=2),
}
# A tenth set, written on 2026-12-07 by a helper from textbook descriptions after the neural ODE's
# linear part, to test it: a machine block on two isolators below its centre of gravity (Harris' Shock
# and Vibration Handbook, the resiliently supported rigid body; sway and rock coupled, 2.278 Hz mostly
# sway and 5.577 Hz mostly rock, the bounce alone at 4.000 Hz; damping 2.6, 2.2 and 4.8 %; an unbalance
# force on its top corner of 1-5 % of the weight, 36 mm of sway at most) and a level arm on a support
# spring carrying a collar that slides along it on a spring (after Meirovitch's Lagrange's-equation
# examples; coupled by the collar's weight, 1.149 Hz mostly the arm and 1.550 Hz mostly the collar,
# damping 2.2 and 1.9 %; a tip force turning the arm up to 16 deg, the collar sliding up to 79 mm,
# centrifugal and Coriolis terms and the collar's changing inertia beyond the linear part).
TENTH_SET = {
    "machine_on_isolators": dict(file="machine_on_isolators.json", load="unbalance", amplitude=(50.0, 200.0),
                                 frequency=(1.5, 7.0), t_end=4.0, output_dt=0.005, nr=3),
    "sliding_collar_arm": dict(file="sliding_collar_arm.json", load="push", amplitude=(0.3, 1.2),
                               frequency=(0.7, 2.2), t_end=6.0, output_dt=0.005, nr=2),
}
# An eleventh set, written on 2026-12-07 by a helper from textbook descriptions, a slow mode far below
# fast ones and a linkage in centimetres: a two-stage isolation mount (Harris' Shock and Vibration
# Handbook, two-stage isolation), an instrument on stiff mounts on an inertia block whose soft support
# carries a heavy viscous damper: the block's bounce over-critically damped (1.198 Hz undamped, damping
# ratio 1.79, a creep of 0.44 s after a load), the instrument's bounce 7.008 Hz (3.9 %) and rock
# 9.988 Hz (1.6 %), a force on its top 0.1 m off centre moving the mounts up to 16 mm; and a 2:1
# reducing pantograph of 80 and 40 mm links lying flat, held by two return springs at its elbow and
# stylus (3.777 Hz mostly the arm, 6.019 Hz mostly the tracer arm, damping 3.0 %), a pull of 2.5-10 mN
# on the stylus swinging the arm up to 11 deg and moving the stylus up to 15 mm, the rhombus's angle
# 71-90 deg (its mass matrix changes with it).
ELEVENTH_SET = {
    "two_stage_isolation": dict(file="two_stage_isolation.json", load="push", amplitude=(15.0, 60.0),
                                frequency=(0.5, 11.0), t_end=4.0, output_dt=0.005, nr=3),
    "cm_pantograph": dict(file="cm_pantograph.json", load="pull", amplitude=(0.0025, 0.01),
                          frequency=(1.5, 7.5), t_end=5.0, output_dt=0.005, nr=2),
}
# A twelfth set, written on 2026-12-07 by a helper from textbook descriptions, three modes with a tuned
# absorber and a closed-loop linkage swinging under gravity: Chopra's two-storey shear frame (Dynamics of
# Structures; m1 = 2m, m2 = m, k1 = 2k, k2 = k), a 0.4 m-storey laboratory model of pinned columns and rigid
# floors (parallelograms) stiffened by cross bracing and softened by gravity (P-delta), with a pendulum tuned
# mass damper of 75 mm on its roof (mass ratio 0.1, Den Hartog's tuning, a dashpot of 5 %): 1.613 Hz (the first
# storey mode, the TMD in phase), 2.191 Hz (the TMD opposed) and 3.983 Hz (the second storey mode), damping 3.4,
# 3.9 and 4.4 %; a force on the roof of 0.5-2 N (at most 1.5 % of the weight) sways the roof up to 14 mm and
# swings the pendulum up to 36 deg; and a rocker pendulum (after Meriam and Kraige's bar carried by two pinned
# links): a platform on two converging 0.6 m links, a Grashof double rocker hanging under gravity, its platform
# tilting by half the links' angle, with a 3 kg pendulum of 0.3 m hung from its middle and a motor torque on one
# link: 0.613 Hz (the pendulum in phase) and 1.152 Hz (opposed), damping 3.3 and 1.9 %; 3 N m swings the links
# -+13 deg (19 deg short of the linkage's dead point), the platform's middle 14 cm and the pendulum up to 42 deg.
TWELFTH_SET = {
    "two_storey_frame_tmd": dict(file="two_storey_frame_tmd.json", load="wind", amplitude=(0.5, 2.0),
                                 frequency=(1.2, 4.8), t_end=5.0, output_dt=0.005, nr=3),
    "rocker_pendulum": dict(file="rocker_pendulum.json", load="motor", amplitude=(0.75, 3.0),
                            frequency=(0.4, 1.6), t_end=6.0, output_dt=0.005, nr=2),
}
# A thirteenth set, written by a helper from textbook descriptions, a closed-loop linkage carrying a second
# mass on a spring and three coupled modes at the scale of metres: a scissor-linkage suspension seat with its
# occupant (Griffin's Handbook of Human Vibration and Wong's Theory of Ground Vehicles, the suspended driver's seat),
# two crossed 0.4 m links at 40 deg (each pinned at one end, rolling at the other, pinned to each other at their
# middles) keeping an 18 kg seat level, a compression spring from the base to the scissors' centre pin (7.5 kN/m at the
# seat, hardening upwards through the linkage: 0.84 and 1.17 times that 11 mm below and above) and a diagonal damper,
# a 55 kg occupant on a 13 kN/m cushion: 1.377 Hz (the occupant with the seat) and 5.518 Hz (the seat against the
# occupant), damping 3.1 and 5.1 %; a force of 2.5-10 N on the seat (at most 1.3 % of the weight) moves the seat up to
# 11 mm and the occupant 16 mm, the links swinging 38-42 deg; and a luffing boom crane (Rao's crane of Mechanical
# Vibrations, Example 1.8, a 10 m boom at 45 deg on a luffing rope, here a 100 kN/m spring) whose 250 kg hook block on a
# 4 m hoist rope and 2 t load on 2 m of slings swing as a double pendulum (Thomson and Dahleh, ch. 5): 0.201 Hz (the
# sway), 0.827 Hz (the boom pitching, the hook opposed) and 1.289 Hz (the hook against the load), damping 3.2, 3.5 and
# 3.5 %; a tag-line pull of 0.5-2 kN on the load swings it up to 1.67 m sideways and 0.31 m up (the ropes to 16 deg),
# the boom tip 10 cm.
THIRTEENTH_SET = {
    "scissor_seat": dict(file="scissor_seat.json", load="shaker", amplitude=(2.5, 10.0),
                         frequency=(1.0, 6.5), t_end=5.0, output_dt=0.005, nr=2),
    "boom_crane": dict(file="boom_crane.json", load="tagline", amplitude=(500.0, 2000.0),
                       frequency=(0.15, 1.6), t_end=6.0, output_dt=0.005, nr=3),
}
# A fourteenth set, written by a helper from textbook descriptions, a robot arm whose inertia changes with its posture
# and an instrument at the scale of a fraction of a gram: a two-link SCARA arm (Craig's Introduction to Robotics, the
# dynamics of the two-link planar arm and a joint's PD servo acting as a spring and a damper; Spong, Hutchinson and
# Vidyasagar's Robot Modeling and Control, the planar elbow manipulator), links of 0.4 and 0.3 m and 8 and 4 kg moving
# in the horizontal plane at an elbow of 60 deg, each joint held by its position loop (200 and 80 N m/rad): 1.535 Hz
# (the arm swinging as a whole, the elbow 0.58 times the shoulder) and 4.041 Hz (the elbow against the shoulder, -4.3
# times), damping 2.7 and 3.7 %, the modes at 1.454 and 4.592 Hz linearised at an elbow of 40 deg, 1.653 and 3.593 Hz at
# 80 deg; a shoulder motor torque of 2.5-10 N m swings the shoulder up to 34 deg and the elbow up to 21.5 deg (38-78
# deg), the centrifugal and Coriolis torques driving the elbow at twice the frequency (30 % off proportional at the
# first resonance); and the Wood-Anderson torsion seismometer (Richter's Elementary Seismology; Lay and Wallace's Modern
# Global Seismology), a copper cylinder of 0.7 g on a taut wire 1 mm off its axis (1.05e-9 kg m^2 about the wire), the
# wire's torsion (6.48e-8 N m/rad) tuned to the instrument's 0.8 s: 1.25 Hz, damping 6 % (the magnet drawn back from the
# instrument's 80 %); the inertial force of a ground acceleration, 1.25-5 uN, turns it up to 35.5 deg, its arm
# shortening with the cosine of the turn (7 % off proportional at the resonance).
FOURTEENTH_SET = {
    "scara_arm": dict(file="scara_arm.json", load="motor", amplitude=(2.5, 10.0),
                      frequency=(1.0, 5.0), t_end=5.0, output_dt=0.005, nr=2),
    "wood_anderson": dict(file="wood_anderson.json", load="ground", amplitude=(1.25e-6, 5e-6),
                          frequency=(0.6, 2.5), t_end=6.0, output_dt=0.005, nr=1),
}
# A fifteenth set, written by a helper from textbook descriptions, a building's scale of tens of metres and tonnes and a
# parallel robot whose stiffness changes with its pose: a traction elevator (Janovsky's Elevator Mechanical Design, the
# traction drive with 1:1 roping and the car's vertical vibration on its stretching ropes; Strakosch and Caporale's The
# Vertical Transportation Handbook, the geared machine and the counterweight; a rope as the spring EA/L of Rao's
# Mechanical Vibrations), a 1.6 t car on 60 m and a 1.6 t counterweight on 30 m of hoist rope (495 and 990 kN/m) over a
# 0.5 m sheave of 50 kg m^2 held by the machine's position loop (15 kN m/rad), coordinates of 15-75 m: 1.164 Hz (the
# drive: car and counterweight opposed, following the ropes over the turning sheave), 3.221 Hz (both bouncing together
# on their ropes) and 8.149 Hz (the sheave against the ropes), damping 3.4, 3.2 and 9.4 %; a force of 0.25-1 kN on the
# car (passengers) moves it up to 5.5 cm, the ropes staying taut (8-23 kN), nearly linear (5.5 % off proportional at the
# drive mode); and a planar 3-RPR parallel manipulator on an air-bearing table (Merlet's Parallel Robots, the planar
# 3-RPR robot; Gosselin's stiffness mapping K = k J^T J; Gosselin and Angeles's singularities), a 3 kg disc of 0.15 m
# radius on three 0.30-0.40 m legs held by soft position loops (400 N/m), turned 60 deg from the pose at which the legs
# point at its centre: 2.089 Hz (along x), 2.381 Hz (along y) and 3.318 Hz (the turn), damping 3.3, 3.7 and 5.2 %, the
# turn's mode at 2.906 Hz linearised 15 deg back and 3.461 Hz 15 deg on (0.223 Hz near the singular pose 60 deg back); a
# tangential force of 0.75-3 N on its rim turns it up to 16 deg and moves its centre up to 5.7 cm, the legs' directions
# and moment arms changing with the pose (35 % off proportional at the turn's resonance).
FIFTEENTH_SET = {
    "traction_elevator": dict(file="traction_elevator.json", load="passengers", amplitude=(250.0, 1000.0),
                              frequency=(0.8, 9.0), t_end=5.0, output_dt=0.005, nr=3),
    "planar_3rpr": dict(file="planar_3rpr.json", load="push", amplitude=(0.75, 3.0),
                        frequency=(1.2, 4.5), t_end=5.0, output_dt=0.005, nr=3),
}
# A sixteenth set, written by a helper from textbook descriptions, each with its point of interest a body marker far from
# its body's basic points, at the scales of tonnes and of grams: the front of a 20 t hydraulic excavator (Vaha and
# Skibniewski's and Koivo et al.'s planar boom-stick-bucket model, J. Aerospace Eng. 1993 and 1996; a locked cylinder's oil
# column as Merritt's hydraulic spring beta_e (A1^2/V1 + A2^2/V2), Hydraulic Control Systems), a 5.7 m boom and a 2.9 m
# stick with the bucket held curled, 1750 and 1900 kg, on cylinders of 3.96e7 and 2.21e7 N/m: 2.8305 Hz (the boom mode)
# and 3.9698 Hz (the stick against the boom), damping 3.6 and 5.1 %; the bucket's teeth, a marker 3.92 m from the stick's
# pin (its basic points within 0.55 m), are pushed by a horizontal force of 0.75-3 kN, the stick swinging up to 0.74 deg
# and the teeth up to 4.7 cm, 2.6 times as far as the stick's basic points, nearly linear (0.8 % off proportional at
# most); and a turntable's pivoted tonearm in a gimbal with its stylus in the groove (Baerwald's offset geometry, J. SMPE
# 1941; the arm-cartridge resonance 1/(2 pi sqrt(M C)) kept at 8-12 Hz, as in Ortofon's matching notes; the 45/45
# stereo groove), 19.8 g of effective mass on a 15 um/mN cartridge: 8.4313 Hz (swinging across the groove, whose radius
# lies 24 deg off the arm's swing) and 9.2193 Hz (bouncing on it), damping 6.0 and 6.5 %; a force of 0.5-2 mN at the
# stylus, a marker 230 mm from the pivot (the only free basic point the counterweight's centre, 40 mm behind), along the
# inner groove wall's normal moves it up to 0.2 mm (the counterweight a sixth of it), the stylus never leaving the
# groove, linear (0.12 % off proportional).
SIXTEENTH_SET = {
    "excavator_front": dict(file="excavator_front.json", load="dig", amplitude=(750.0, 3000.0),
                            frequency=(1.5, 6.0), t_end=5.0, output_dt=0.005, nr=2),
    "tonearm": dict(file="tonearm.json", load="groove", amplitude=(0.0005, 0.002),
                    frequency=(4.0, 13.0), t_end=5.0, output_dt=0.005, nr=2),
}
# The sets kept apart from the first, by their options.
OTHER_SETS = {"check_set": ("second", CHECK_SET), "fresh_set": ("third", FRESH_SET),
              "fourth_set": ("fourth", FOURTH_SET), "fifth_set": ("fifth", FIFTH_SET),
              "sixth_set": ("sixth", SIXTH_SET), "seventh_set": ("seventh", SEVENTH_SET),
              "eighth_set": ("eighth", EIGHTH_SET), "ninth_set": ("ninth", NINTH_SET),
              "tenth_set": ("tenth", TENTH_SET), "eleventh_set": ("eleventh", ELEVENTH_SET),
              "twelfth_set": ("twelfth", TWELFTH_SET), "thirteenth_set": ("thirteenth", THIRTEENTH_SET),
              "fourteenth_set": ("fourteenth", FOURTEENTH_SET), "fifteenth_set": ("fifteenth", FIFTEENTH_SET),
              "sixteenth_set": ("sixteenth", SIXTEENTH_SET)}
METHODS = ["pod", "ae", "pca", "node", "sindy"]
# Unseen loads outside the design (content above its band): a warning there is no false alarm.
BEYOND = {"sharp_step"}
MISS = 0.05
QUIET = 0.025
SENSITIVITY_CHANGE = 1.001  # loads 0.1 % larger: about a good reduced model's force error


def run(cmd, log):
    """Runs `cmd` on one core; returns (exit code, stdout, stderr), both also written to `log`."""
    # On core 0, as every benchmark, or BENCH_CORE: two runs of this script at once each need a
    # core of their own, or their timings share one. BENCH_PIN=0 (the CI test) leaves the
    # scheduler free.
    pin = shutil.which("taskset") and os.environ.get("BENCH_PIN", "1") == "1"
    full = ["taskset", "-c", os.environ.get("BENCH_CORE", "0")] + cmd if pin else cmd
    p = subprocess.run(full, capture_output=True, text=True)
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n" + p.stdout + p.stderr)
    return p.returncode, p.stdout, p.stderr


def sine(a, f, phase=0.0):
    return {"type": "sine", "amplitude": a, "frequency": f, "phase": phase}


def unseen_loads(spec, quick):
    """The load functions of the unseen runs, by name."""
    (alo, ahi), (flo, fhi) = spec["amplitude"], spec["frequency"]
    t_end = spec["t_end"]
    fmid = 0.5 * (flo + fhi)
    width = 1.0 / (2.0 * fmid)
    bump_t = [0.0, 0.5] + [0.5 + width * k / 40 for k in range(1, 41)] + [t_end]
    bump_v = [0.0, 0.0] + [0.8 * ahi * math.sin(math.pi * k / 40) for k in range(1, 41)] + [0.0]
    # A step inside the design rises over half a period of its highest frequency; the sharp step
    # (50 ms) carries content far above the band: a load beyond the design, where a warning is due.
    loads = {
        "step": {"type": "smooth_step", "t0": 0.5, "t1": 0.5 + 0.5 / fhi, "value": 0.7 * ahi},
        "sharp_step": {"type": "smooth_step", "t0": 0.5, "t1": 0.55, "value": 0.7 * ahi},
        "bump": {"type": "table", "times": bump_t, "values": bump_v},
        "chirp": {"type": "chirp", "amplitude": 0.6 * ahi, "frequency": flo, "rate": (fhi - flo) / t_end},
        "two_sines": {"type": "sum", "terms": [sine(0.45 * ahi, flo + 0.25 * (fhi - flo)),
                                               sine(0.4 * ahi, flo + 0.8 * (fhi - flo), 1.0)]},
    }
    points = [(0.3, 0.7), (0.6, 0.2), (0.85, 0.55)]
    for i, (fa, ff) in enumerate(points[:1] if quick else points):
        loads[f"sine_{i + 1}"] = sine(alo + fa * (ahi - alo), flo + ff * (fhi - flo))
    if quick:
        del loads["bump"], loads["two_sines"]
    return loads


def design_rows(sweep_dir):
    with open(os.path.join(sweep_dir, "design.csv")) as f:
        return list(csv.DictReader(row for row in f if not row.startswith("#")))


def model_with_cases(spec, src, dst, sweep_dir, quick):
    """The mechanism with a load case per evaluated run: kinds "training" and "unseen"."""
    m = json.load(open(src))
    base = next(c for c in m["load_cases"] if c["name"] == spec.get("case", "train"))
    m["load_cases"] = [base]  # the evaluated runs' names are the only others
    kinds = {}
    load = spec["load"]
    for i, row in enumerate(design_rows(sweep_dir)[:2]):
        case = copy.deepcopy(base)
        case["name"] = f"design_{i + 1}"
        case["_design_run"] = row["run"]  # the sweep run it repeats (taken out before writing)
        fn = next(l for l in case["loads"] if l["name"] == load)["function"]
        if fn["type"] == "sum":  # the one term with an amplitude, as the design's names address it
            fn = next(t for t in fn["terms"] if "amplitude" in t)
        fn["amplitude"] = float(row[f"load.{load}.amplitude"])
        fn["frequency"] = float(row[f"load.{load}.frequency"])
        m["load_cases"].append(case)
        kinds[case["name"]] = "training"
    for name, fn in unseen_loads(spec, quick).items():
        case = copy.deepcopy(base)
        case["name"] = name
        if "offset" in spec:
            fn = {"type": "sum", "terms": [{"type": "constant", "value": spec["offset"]}, fn]}
        next(l for l in case["loads"] if l["name"] == load)["function"] = fn
        m["load_cases"].append(case)
        kinds[name] = "beyond" if name in BEYOND else "unseen"
    repeats = {c["name"]: c.pop("_design_run") for c in m["load_cases"] if "_design_run" in c}
    json.dump(m, open(dst, "w"), indent=1)
    return kinds, repeats


def trained_runs(rom_file):
    """The names of the runs the written model was trained on (its held-out check's model, when
    that one was written instead, lacks the runs it held out)."""
    try:
        return {r.get("name") for r in json.load(open(rom_file))["metrics"].get("training_runs", [])}
    except (OSError, ValueError, KeyError):
        return None


def worst_point(compare_json):
    try:
        c = json.loads(compare_json)
    except ValueError:
        return None, None
    points = [p for p in c.get("points", []) if p.get("reference_rms", 0) > 0 and p.get("relative_rmse") is not None]
    if not points:
        return None, None
    p = max(points, key=lambda p: p["relative_rmse"])
    return p["relative_rmse"], p["name"]


BOUND = re.compile(r"expect\s*(?:<=|≤)\s*([0-9.eE+-]+)\s*%")
SPEED = re.compile(r"speed-up\s+([0-9.eE+-]+)\s*x")
RESIDUAL = re.compile(r"equations of motion\s+the force no constraint balances is ([0-9.eE+-]+) %")


def mechanism(name, spec, args, out):
    work = os.path.join(args.work, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cli = args.cli
    src = os.path.join(MODELS, spec["file"])
    span = ["--t-end", str(spec["t_end"] * (0.6 if args.quick else 1.0)), "--output-dt", str(spec["output_dt"])]
    load = spec["load"]
    (alo, ahi), (flo, fhi) = spec["amplitude"], spec["frequency"]
    runs = 6 if args.quick else 10
    code, _, err = run([cli, "sweep", src, "-o", f"{work}/sweep", "--load-case", spec.get("case", "train"),
                        "--vary", f"load.{load}.amplitude={alo}:{ahi}", "--vary", f"load.{load}.frequency={flo}:{fhi}",
                        "--design", "latin-hypercube", "--runs", str(runs), "--seed", "1", "--jobs", "1"] + span,
                       f"{work}/sweep.log")
    if code:
        sys.exit(f"{name}: sweep failed: {err.strip()}")
    code, _, err = run([cli, "merge", f"{work}/sweep", "-o", f"{work}/dataset.json"], f"{work}/merge.log")
    if code:
        sys.exit(f"{name}: merge failed: {err.strip()}")
    model = f"{work}/model.json"
    kinds, repeats = model_with_cases(spec, src, model, f"{work}/sweep", args.quick)
    for case in kinds:
        code, _, err = run([cli, "simulate", model, "-o", f"{work}/ref_{case}.csv", "--load-case", case] + span,
                           f"{work}/ref_{case}.log")
        if code:
            sys.exit(f"{name}: reference run {case} failed: {err.strip()}")

    out.append(load_sensitivity(name, model, kinds, work, cli, span))

    for method in args.methods:
        extra = (["--nr", str(spec["nr"])] if method == "pod" else []) + shlex.split(args.train_args)
        t0 = time.time()
        code, stdout, err = run([cli, "train", method, "--model", src, "--data", f"{work}/dataset.json",
                                 "-o", f"{work}/{method}.json"] + extra, f"{work}/{method}.train.log")
        row = {"mechanism": name, "method": method, "training_seconds": time.time() - t0, "runs": []}
        out.append(row)
        if code == 3:  # written, but it fails its checks: its runs say so, and are counted
            row["failed_checks"] = True
        elif code:
            row["training_failed"] = (err.strip().splitlines() or ["?"])[-1]
            continue
        verdict = re.search(r"^verdict\s+(.*)$", stdout, re.M)
        row["verdict"] = verdict.group(1) if verdict else ""
        # The written model on all its training runs (train's own check), worst run.
        own = re.search(r"^training runs\s+.*?(?:within|by) ([0-9.eE+-]+) %", stdout, re.M)
        row["own_runs"] = float(own.group(1)) / 100 if own else None
        trained = trained_runs(f"{work}/{method}.json")
        for case, kind in kinds.items():
            # A design run the written model did not train on (one its held-out check held out,
            # that model written instead) is unseen by it.
            if kind == "training" and trained is not None and repeats.get(case) not in trained:
                kind = "unseen"
            csv_out = f"{work}/{method}_{case}.csv"
            cmd = [cli, "rom-simulate", f"{work}/{method}.json", "--model", model, "--load-case", case, "-o",
                   csv_out] + span + (["--benchmark"] if case == "chirp" else [])
            code, stdout, err = run(cmd, f"{work}/{method}_{case}.log")
            # Accuracy signals only: the speed note of --benchmark says nothing about the error.
            warnings = [l.split("warning: ", 1)[1] for l in err.splitlines()
                        if ": warning: " in l and "slower than the full model" not in l]
            r = {"case": case, "kind": kind, "exit": code, "warnings": warnings}
            if code == 0 or os.path.exists(csv_out):
                _, cmp_out, _ = run([cli, "compare", f"{work}/ref_{case}.csv", csv_out, "--json"],
                                    f"{work}/{method}_{case}.compare.log")
                r["error"], r["point"] = worst_point(cmp_out)
            if code:
                r["stopped"] = (err.strip().splitlines() or ["?"])[-1]
            residual = RESIDUAL.search(stdout)
            r["residual"] = float(residual.group(1)) / 100 if residual else None
            bound = BOUND.search(stdout + err)
            r["bound"] = float(bound.group(1)) / 100 if bound else None
            speed = SPEED.search(stdout)
            if speed:
                # One run in the CI test (--quick), which checks the signals, not the speed.
                row["speed_up"] = median_speed_up(cmd, float(speed.group(1)), f"{work}/{method}_{case}",
                                                  1 if args.quick else 5)
            row["runs"].append(r)


def median_speed_up(cmd, first, stem, runs=5):
    """The median speed-up of `runs` --benchmark runs of `cmd`, the first of which gave `first`: a
    run of a few milliseconds is timed once, and one preemption can halve or double it."""
    again = cmd[:cmd.index("-o") + 1] + [stem + ".again.csv"] + cmd[cmd.index("-o") + 2:]
    speeds = [first]
    for k in range(1, runs):
        _, stdout, _ = run(again, f"{stem}.benchmark_{k + 1}.log")
        speed = SPEED.search(stdout)
        if speed:
            speeds.append(float(speed.group(1)))
    if os.path.exists(stem + ".again.csv"):
        os.remove(stem + ".again.csv")
    return statistics.median(speeds)


def load_sensitivity(name, model, kinds, work, cli, span):
    """The full model's own sensitivity: each unseen run again with every load 0.1 % larger, its
    worst point's relative RMS error against the run (what no model can do better than)."""
    m = json.load(open(model))
    for case in m["load_cases"]:
        for load in case["loads"]:
            load["direction"] = [SENSITIVITY_CHANGE * x for x in load["direction"]]
    perturbed = f"{work}/model_loads_larger.json"
    json.dump(m, open(perturbed, "w"), indent=1)
    errors = {}
    for case, kind in kinds.items():
        if kind != "unseen":
            continue
        csv_out = f"{work}/ref_larger_{case}.csv"
        code, _, _ = run([cli, "simulate", perturbed, "-o", csv_out, "--load-case", case] + span,
                         f"{work}/ref_larger_{case}.log")
        if code == 0:
            _, cmp_out, _ = run([cli, "compare", f"{work}/ref_{case}.csv", csv_out, "--json"],
                                f"{work}/ref_larger_{case}.compare.log")
            errors[case] = worst_point(cmp_out)[0]
    return {"mechanism": name, "sensitivity": errors}


def classify(r):
    """'miss', 'silent miss', 'false alarm', 'ok' or 'ok, warned' for one run."""
    err = r.get("error")
    warned = bool(r["warnings"]) or r["exit"] != 0
    if err is None or not math.isfinite(err) or err > MISS:
        return "miss" if warned else "silent miss"
    if warned and err <= QUIET:
        return "false alarm"
    return "ok, warned" if warned else "ok"


# Warnings that judge a model as a whole, on every run of it: its training found it wrong or could
# not judge it. Their runs within 2.5 % count as false alarms too; the pooled line says how many.
MODEL_WARNINGS = ("the model failed its check", "the written model misses its own training runs",
                  "the model blows up on its own training runs", "the model is unvalidated")


def model_flagged(r):
    return any(w.startswith(MODEL_WARNINGS) for w in r["warnings"])


def pct(x):
    return "—" if x is None else ("%.2g %%" % (100 * x) if x < 0.01 else "%.1f %%" % (100 * x))


def report(rows):
    lines = ["| mechanism | method | training | all training runs (train's check) | training runs | unseen runs "
             "(median / worst) | misses | silent misses | false alarms | bounds covering | speed-up |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    failed = []
    sensitivity = [row for row in rows if "sensitivity" in row]
    rows = [row for row in rows if "sensitivity" not in row]
    for row in rows:
        if "training_failed" in row:
            lines.append(f"| {row['mechanism']} | {row['method']} | refused: {row['training_failed'][:120]} "
                         "| | | | | | | | |")
            continue
        train = [r for r in row["runs"] if r["kind"] == "training"]
        unseen = [r for r in row["runs"] if r["kind"] == "unseen"]
        kinds = [classify(r) for r in unseen]
        errs = sorted(e if e is not None else math.inf for e in (r.get("error") for r in unseen))
        tr_err = max((r.get("error") or math.inf) for r in train) if train else None
        # A model found wrong (by its held-out check or on its own runs), or not validated, says so
        # on every run, its training runs too: only
        # another warning on a training run it follows (<= 2.5 %) cries wolf.
        train_warned = [r["case"] for r in train
                        if r.get("error") is not None and r["error"] <= QUIET and
                        [w for w in r["warnings"] if "failed its check in training" not in w and
                         "is unvalidated" not in w and "misses its own training runs" not in w]]
        silent = [r["case"] for r, k in zip(unseen, kinds) if k == "silent miss"]
        silent += [r["case"] for r in row["runs"] if r["kind"] == "beyond" and classify(r) == "silent miss"]
        # A rerun of a training run states what training measured there: a miss there must warn too.
        train_silent = [r["case"] for r in train if classify(r) == "silent miss"]
        bounded = [r for r in unseen if r.get("bound") is not None and r.get("error") is not None]
        covered = sum(1 for r in bounded if r["error"] <= r["bound"])
        lines.append(
            f"| {row['mechanism']} | {row['method']} | {row['training_seconds']:.0f} s | {pct(row.get('own_runs'))} "
            f"| {pct(tr_err)}"
            f"{' (warned: ' + ', '.join(train_warned) + ')' if train_warned else ''}"
            f"{' (silent miss: ' + ', '.join(train_silent) + ')' if train_silent else ''} | "
            f"{pct(errs[len(errs) // 2])} / {pct(errs[-1])} | {kinds.count('miss') + len(silent)} of {len(unseen)} | "
            f"{len(silent)}{' (' + ', '.join(silent) + ')' if silent else ''} | {kinds.count('false alarm')} | "
            f"{f'{covered} of {len(bounded)}' if bounded else 'no bound'} | "
            f"{'%.1fx' % row['speed_up'] if 'speed_up' in row else '—'} |")
        failed += [f"{row['mechanism']}/{row['method']}: silent miss on {c}" for c in silent]
        failed += [f"{row['mechanism']}/{row['method']}: warned on its training run {c}" for c in train_warned]
        failed += [f"{row['mechanism']}/{row['method']}: silent miss on its training run {c}" for c in train_silent]
    notes = []
    for row in sensitivity:
        errs = sorted((e, c) for c, e in row["sensitivity"].items() if e is not None)
        if errs:
            notes.append(f"{row['mechanism']}: the full model under loads 0.1 % larger ends {pct(errs[len(errs) // 2][0])} "
                         f"(median) / {pct(errs[-1][0])} ({errs[-1][1]}) away from its unseen runs")
    return "\n".join(lines) + "\n\n" + pooled(rows) + ("\n\n" + "\n".join(notes) if notes else ""), failed


def pooled(rows):
    """One line over every model that trained: the rates the trust signals are judged by."""
    unseen = [r for row in rows if "training_failed" not in row for r in row["runs"] if r["kind"] == "unseen"]
    kinds = [classify(r) for r in unseen]
    quiet = [k for r, k in zip(unseen, kinds) if r.get("error") is not None and r["error"] <= QUIET]
    bounded = [r for r in unseen if r.get("bound") is not None and r.get("error") is not None and r["error"] > 0]
    covered = [r for r in bounded if r["error"] <= r["bound"]]
    ratios = sorted(r["bound"] / r["error"] for r in bounded)
    median = ratios[len(ratios) // 2] if ratios else math.nan
    # The equation residual as a signal: how it ranks the runs' errors, and how it separates misses
    # from runs within 2.5 % (the median residual of each).
    both = [(r["residual"], r["error"]) for r in unseen
            if r.get("residual") is not None and r.get("error") is not None and math.isfinite(r["error"])]
    residual_line = ""
    if len(both) >= 3:
        def ranks(xs):
            order = sorted(range(len(xs)), key=lambda i: xs[i])
            out = [0.0] * len(xs)
            for rank, i in enumerate(order):
                out[i] = float(rank)
            return out
        ra, rb = ranks([b[0] for b in both]), ranks([b[1] for b in both])
        n = len(both)
        ma, mb = sum(ra) / n, sum(rb) / n
        cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
        sa = math.sqrt(sum((x - ma) ** 2 for x in ra))
        sb = math.sqrt(sum((y - mb) ** 2 for y in rb))
        rho = cov / (sa * sb) if sa > 0 and sb > 0 else math.nan
        missed = sorted(b[0] for b in both if b[1] > MISS)
        fine = sorted(b[0] for b in both if b[1] <= QUIET)
        med = lambda xs: xs[len(xs) // 2] if xs else math.nan
        residual_line = (f"; equation residual over {n} runs: Spearman rank correlation with the error {rho:.2f}, "
                         f"median {pct(med(missed))} on the misses, {pct(med(fine))} on the runs within 2.5 %")
    beyond = [r for row in rows if "training_failed" not in row for r in row["runs"] if r["kind"] == "beyond"]
    bk = [classify(r) for r in beyond]
    beyond_line = (f"; beyond the design ({', '.join(sorted(BEYOND))}): {len(beyond)} runs, "
                   f"{sum(1 for r in beyond if r['warnings'] or r['exit'])} warned, "
                   f"{bk.count('miss') + bk.count('silent miss')} misses, {bk.count('silent miss')} silent"
                   if beyond else "")
    # The load band (its frequencies against the fastest training run's): runs it put outside.
    flagged = [k for r, k in zip(unseen, kinds) if model_flagged(r) and r.get("error") is not None and r["error"] <= QUIET]
    flagged_line = (f" ({flagged.count('false alarm')} of {len(flagged)} of models their training found wrong or "
                    f"could not judge, {kinds.count('false alarm') - flagged.count('false alarm')} of "
                    f"{len(quiet) - len(flagged)} of the others)")
    band = lambda runs: sum(1 for r in runs if any("frequency band" in w for w in r["warnings"]))
    band_line = f"; outside the load band: {band(unseen)} unseen runs, {band(beyond)} beyond the design"
    return (f"pooled over {len(unseen)} unseen runs: {kinds.count('miss') + kinds.count('silent miss')} misses "
            f"(> 5 %), {kinds.count('silent miss')} silent; {kinds.count('false alarm')} false alarms among the "
            f"{len(quiet)} runs within 2.5 %{flagged_line}; {len(bounded)} runs stated a bound, which covered "
            f"{len(covered)} ({100 * len(covered) / max(1, len(bounded)):.0f} %), median bound / error "
            f"{median:.2f}{residual_line}{beyond_line}{band_line}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cli", default="build/release/app/cli/mbdrom-cli")
    p.add_argument("--work", default="/tmp/rom_trust")
    p.add_argument("--mechanisms", help="a comma-separated subset of the set run (default: all of it)")
    for option, (nth, mechanisms) in OTHER_SETS.items():
        p.add_argument("--" + option.replace("_", "-"), action="store_true",
                       help=f"the {nth} set of mechanisms ({', '.join(mechanisms)}) instead")
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--train-args", default="", help="more options for every method's train command")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--check", action="store_true")
    p.add_argument("--must-train", default="",
                   help="with --check: also exit 1 when one of these methods (comma-separated) refuses to train")
    p.add_argument("--json")
    args = p.parse_args()
    if args.must_train and not args.check:
        p.error("--must-train is a condition of --check: give both")
    chosen = [option for option in OTHER_SETS if getattr(args, option)]
    if len(chosen) > 1:
        p.error(" and ".join("--" + o.replace("_", "-") for o in chosen) + " choose different sets: give one")
    args.cli = os.path.abspath(args.cli)
    args.methods = args.methods.split(",")
    rows = []
    known = OTHER_SETS[chosen[0]][1] if chosen else MECHANISMS
    for name in (args.mechanisms or ",".join(known)).split(","):
        if name not in known:
            sys.exit(f"unknown mechanism {name!r}: one of {', '.join(known)}")
        mechanism(name, known[name], args, rows)
    table, failed = report(rows)
    must = set(filter(None, args.must_train.split(",")))
    failed += [f"{row['mechanism']}/{row['method']}: refused to train: {row['training_failed']}"
               for row in rows if row.get("method") in must and "training_failed" in row]
    print(table)
    for row in rows:
        for r in row.get("runs", []):
            print(f"  {row['mechanism']}/{row['method']}/{r['case']}: {pct(r.get('error'))} at {r.get('point')}, "
                  f"{classify(r) if r['kind'] != 'training' else 'training'}{' (beyond)' if r['kind'] == 'beyond' else ''}"
                  f"{', bound ' + pct(r['bound']) if r.get('bound') is not None else ''}"
                  f"{', residual ' + pct(r['residual']) if r.get('residual') is not None else ''}"
                  f"{'; ' + ' | '.join(w[:90] for w in r['warnings']) if r['warnings'] else ''}")
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)
    if args.check and failed:
        print("\n".join(failed), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
