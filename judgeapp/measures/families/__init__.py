"""The measure families, one module per family (or per group of close relatives), each
citing its trec_eval source (``m_<name>.c``) and paper. Each module declares its families,
with their kernels and names, in its ``REGISTRATIONS`` list; importing one registers
nothing: :mod:`judgeapp.measures.registry` lists the modules and reads the lists.

- :mod:`.counts`: runid, relstring, num_q, num_ret, num_rel, num_rel_ret, unj, Judged
- :mod:`.ap`: AP (map, map_cut), gm_map, IPrec, 11pt_avg, AP_11pt
- :mod:`.precision`: P, R, relative_P, Success, Rprec, Rprec_mult
- :mod:`.bpref`: Bpref, gm_bpref, infAP
- :mod:`.rr`: RR (recip_rank)
- :mod:`.gain`: nDCG (ndcg, ndcg_cut), DCG, ideal_dcg, ndcg_rel, Rndcg, G, binG
- :mod:`.sets`: SetP, SetR, SetAP, SetF, F, Fallout, Acc, utility
- :mod:`.rbp`: rbp, rbp_resid, RBP
- :mod:`.beyond_trec`: ERR, the C/W/L measures, Compat, Accuracy, Hits
- :mod:`.diversity`: alpha-nDCG, ERR-IA, NRBP and the other ndeval measures
- :mod:`.prefs`: trec_eval's preference and judgment-group measures, yaap
"""
