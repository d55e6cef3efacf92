# METADATA
# title: Helpers for the scheduler's capacity words
# description: |
#   The resources a scheduler message says are short ("2 Insufficient cpu",
#   "8 Insufficient nvidia.com/gpu"), and which of them are accelerators.
#   The insufficient-gpu and insufficient-resources rules split one message
#   between them and must agree on the split. This package emits no
#   findings.
package traindoc.lib.capacity

# kube-scheduler and Volcano write "Insufficient <resource>"; the name ends
# before the punctuation that follows it ("Insufficient cpu,",
# "Insufficient nvidia.com/gpu.", "Insufficient hugepages-1Gi.").
_insufficient := `\bInsufficient ([A-Za-z0-9][A-Za-z0-9._/-]*[A-Za-z0-9])`

# Accelerator resources of the device plugins seen on training clusters:
# NVIDIA (whole GPUs, MIG slices, time-sliced "gpu.shared", HAMi's gpumem
# and gpucores), AMD, Intel, Habana Gaudi, AWS Neuron and virtual GPUs,
# Google TPUs, Huawei Ascend (HAMi's "-memory" too), Alibaba's GPU share,
# Volcano's vGPU, Cambricon MLUs and Hygon DCUs; and a bare "GPU" from
# schedulers that name no device plugin.
_accelerator := `^([Gg][Pp][Uu]s?$|nvidia\.com/(gpu|mig-)|amd\.com/gpu|gpu\.intel\.com/|intel\.com/gpu|habana\.ai/gaudi|aws\.amazon\.com/neuron|k8s\.amazonaws\.com/vgpu|google\.com/tpu|huawei\.com/Ascend|aliyun\.com/gpu|volcano\.sh/(vgpu|gpu)-|cambricon\.com/mlu|hygon\.com/dcu)`

# short(msg) are the resources a message names after "Insufficient".
short(msg) := {m[1] | some m in regex.find_all_string_submatch_n(_insufficient, msg, -1)}

accelerator(name) if regex.match(_accelerator, name)

# accelerators_short(msg) and others_short(msg) split short(msg).
accelerators_short(msg) := {r | some r in short(msg); accelerator(r)}

others_short(msg) := {r | some r in short(msg); not accelerator(r)}
