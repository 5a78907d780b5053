"""Invariants of reading a pod's share (tfpolicy.verify.shares): the annotations the
webhook writes for a share read back as that share, in any of the quantity spellings
Kubernetes prints; any other value of one of them is another share."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tfpolicy.verify.shares import Share, pod_share, same_share

TF = "tensor-fusion.ai/"
tflops = st.integers(min_value=1, max_value=2000)
vram_gi = st.integers(min_value=1, max_value=160)


def written(t_req: int, t_lim: int, v_req: int, v_lim: int, mi: bool) -> dict[str, str]:
    """As compose.go writes them; VRAM as Gi or the same amount in Mi."""
    vram = (lambda g: f"{g * 1024}Mi") if mi else (lambda g: f"{g}Gi")
    return {f"{TF}isolation": "soft", f"{TF}tflops-request": str(t_req),
            f"{TF}tflops-limit": str(t_lim), f"{TF}vram-request": vram(v_req),
            f"{TF}vram-limit": vram(v_lim)}


def share(t_req: int, t_lim: int, v_req: int, v_lim: int) -> Share:
    return Share("soft", (t_req * 1000, t_lim * 1000), (0, 0), (v_req * 1024, v_lim * 1024))


@given(tflops, tflops, vram_gi, vram_gi, st.booleans())
def test_a_written_share_reads_back(t_req: int, t_lim: int, v_req: int, v_lim: int,
                                    mi: bool) -> None:
    seen = pod_share(written(t_req, t_lim, v_req, v_lim, mi))
    assert same_share(seen, share(t_req, t_lim, v_req, v_lim))


@given(tflops, tflops, vram_gi, vram_gi, st.integers(min_value=0, max_value=3),
       st.integers(min_value=1, max_value=50))
def test_another_value_is_another_share(t_req: int, t_lim: int, v_req: int, v_lim: int,
                                        which: int, bump: int) -> None:
    values = [t_req, t_lim, v_req, v_lim]
    values[which] += bump
    seen = pod_share(written(*values, mi=False))
    assert not same_share(seen, share(t_req, t_lim, v_req, v_lim))


@given(tflops, vram_gi)
def test_a_whole_card_is_no_share(t_req: int, v_req: int) -> None:
    notes = {**written(t_req, t_req, v_req, v_req, False), f"{TF}isolation": "shared"}
    assert not same_share(pod_share(notes), share(t_req, t_req, v_req, v_req))
    assert same_share(pod_share(notes), Share("shared"))
