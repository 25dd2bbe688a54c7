"""OSDT: optimal sparse decision trees by branch and bound over leaf sets (Hu, Rudin, Seltzer 2019).

A search node is a whole tree whose leaves are split into *unchanged* ones
(never split again) and ones that *will be split*. A best-first queue of such
nodes, the leaf and tree caches and the bounds of the paper (with the leaf
count bounds of its Appendix C corrected) find and prove the tree that
minimises misclassification + λ × leaves.

Modules: ``params`` (registry entry), ``data`` (points, bitsets, feature
order), ``leaves`` (leaf cache), ``trees`` (tree cache and models),
``queue`` (priority heap and policies), ``bounds`` (the pruning rules),
``expand`` (the bounded search step), ``search`` (driver protocol),
``warm`` (CART warm start).
"""
