"""Correct answers, but forks a child at import that sleeps beside the tests. Expected: RE right
after the import (a process left running), the child gone with the sandbox."""

import os
import time

import torch


# @include correct_control

if os.fork() == 0:
    time.sleep(10**6)
    os._exit(0)
