"""Chinese names of the ids the data uses (patterns, properties, wild categories, win
kinds), for tables and plots: ``label("qixiaodui")`` -> ``"qixiaodui 七小對"``."""
from __future__ import annotations

__all__ = ["CHINESE", "chinese", "label"]

CHINESE = {
    # Wanzai patterns (RULES §2.2) and properties
    "pinghu": "平胡", "shisanlan": "十三爛", "qixing_shisanlan": "七星十三爛", "quanqiuren": "全求人",
    "daqidui": "大七對", "qixiaodui": "七小對", "haohua_qixiaodui": "豪華七小對",
    "shuang_haohua_qixiaodui": "雙豪華七小對", "san_haohua_qixiaodui": "三豪華七小對",
    "qingyise_pinghu": "清一色平胡", "qingyise_daqidui": "清一色大七對", "qingyise_qixiaodui": "清一色七小對",
    "qingyise_haohua_qixiaodui": "清一色豪華七小對", "qingyise_shuang_haohua_qixiaodui": "清一色雙豪華七小對",
    "qingyise_san_haohua_qixiaodui": "清一色三豪華七小對", "qingyise": "清一色",
    # Anhua (RULES §3)
    "yingzhuang": "硬莊", "xiaoqidui": "小七對", "dan_wang": "單王", "san_wang": "三王", "si_wang": "四王",
    "liu_wang": "六王", "qi_wang": "七王", "gangshanghua": "槓上花", "qiangganghu": "搶槓胡",
    "gangshangpao": "槓上炮",
    # win kinds
    "self_draw": "自摸", "discard": "點炮", "rob_kong": "搶槓", "instant": "特殊平胡",
    # games and money
    "wanzai": "萬載", "anhua": "安化七王", "fire": "上火", "piao": "飄", "birds": "抓鳥",
    "kong_added": "補槓", "kong_exposed": "明槓", "kong_concealed": "暗槓", "kong_refund": "槓錢退還",
    "win": "胡",
}


def chinese(name: str) -> str:
    """The Chinese name of an id, or ''."""
    return CHINESE.get(str(name), "")


def label(name: str) -> str:
    """'qixiaodui' -> 'qixiaodui 七小對'; an id without a Chinese name as it is."""
    zh = chinese(name)
    return f"{name} {zh}" if zh else str(name)
