"""Reference solution of problem 72: the kernels package's router."""

from kernels.moe import load_balancing_loss, route_topk, router_z_loss

__all__ = ["route_topk", "load_balancing_loss", "router_z_loss"]
