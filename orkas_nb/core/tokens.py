"""Token estimation that knows scripts, with no tokenizer and no heavy dependency (SPEC §5).

A chars/4 rule is off 2-3x on Chinese. This estimator instead counts what a byte-level BPE
tokenizer (o200k_base) actually splits on: word starts, camelCase boundaries, digit groups,
punctuation runs, indentation, line breaks, the pieces that merge (blank lines, a mark before a
line break, ``_`` and ``.`` before a word), and one weight per script for text that is not
ASCII (Han, kana, Hangul, Cyrillic, Greek, Hebrew, Arabic, Devanagari, Thai, Georgian, emoji
...). A few per-text shares pick between regimes: how English the Latin words are ("th" and
underscores per letter), which accents and which of k w z j y v the text uses (they tell
Polish from French), and whether Han text is simplified, traditional or Japanese; Han
characters o200k has no token for are counted apart (a table of the 2,515 it has).

Speed: the text is encoded to UTF-8 once and mapped to one class byte per code point with
``bytes.translate`` (continuation bytes deleted), so every count afterwards is a C-level
``bytes.count``; pure-ASCII text skips the non-ASCII classes, and on a text over 128K
characters the counts of how pieces join are taken on four 16K-character windows and scaled
(``tests/benchmarks/bench_tokens.py`` measures it).

The weights are fitted against o200k_base on the ``tune`` split of ``tests/data/tokens/corpus``
(2,690 texts of 500+ characters in 40 categories, from a Debian machine's own catalogues,
man pages, licences, code and data, each with its source and licence;
``python tests/core/calibrate_tokens.py --fit --write`` re-derives them), scaled up 3% so the
errors lean to over-estimating. ``tests/core/test_tokens.py`` bounds every category at 10% on
the ``holdout`` split, which the fit never sees. Languages outside the corpus can be off by
more (see the README); there is no offline tokenizer for Anthropic's models.

Images are counted by their pixel size (from the block, or read from the PNG/JPEG/GIF/WebP
header), taking the larger of the two providers' published rules, since over-estimating an
image only compacts a little early while under-estimating one overflows the window.
"""

from __future__ import annotations

import base64
import json
import math
import re
import struct
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from .messages import shared_prefix

__all__ = [
    "MESSAGE_OVERHEAD",
    "estimate_image",
    "estimate_message",
    "estimate_messages",
    "estimate_request",
    "estimate_text",
]

# -- character classes ------------------------------------------------------------------------
# One class byte per code point: ASCII bytes map to their class, UTF-8 lead bytes map to the
# class of the script block they open, continuation bytes are deleted.
_LEAD_CLASSES = [  # (first byte, last byte, class)
    (0x61, 0x7A, "l"), (0x41, 0x5A, "u"), (0x30, 0x39, "d"),
    (0x0A, 0x0A, "n"), (0x0D, 0x0D, "n"), (0x09, 0x09, "s"), (0x0B, 0x0C, "s"), (0x20, 0x20, "s"),
    (0x5F, 0x5F, "w"), (0x2E, 0x2E, "o"),  # _ and . : they join the word after them (snake_case, os.path)
    (0xC0, 0xC1, "q"),  # never valid UTF-8
    (0xC2, 0xCD, "L"),  # Latin-1 supplement, Latin extended, IPA, combining marks
    (0xCE, 0xCF, "g"),  # Greek
    (0xD0, 0xD4, "y"),  # Cyrillic
    (0xD5, 0xD7, "r"),  # Armenian, Hebrew
    (0xD8, 0xDF, "b"),  # Arabic, Syriac, Thaana, N'Ko
    (0xE0, 0xE1, "i"),  # Indic, Thai, Georgian, Ethiopic, Khmer (Vietnamese letters: see _VIET)
    (0xE2, 0xE2, "q"),  # general punctuation, arrows, maths, box drawing
    (0xE3, 0xE3, "k"),  # CJK punctuation, hiragana, katakana
    (0xE4, 0xE9, "H"),  # Han (U+4000-U+9FFF)
    (0xEA, 0xED, "K"),  # Hangul syllables (and Yi)
    (0xEE, 0xEE, "q"),  # private use
    (0xEF, 0xEF, "f"),  # full-width forms, CJK compatibility
    (0xF0, 0xF4, "e"),  # emoji and the supplementary planes
    (0xF5, 0xFF, "q"),  # never valid UTF-8
]


def _class_table() -> bytes:
    table = bytearray(b"p" * 256)  # the rest of ASCII: punctuation, symbols, controls
    for first, last, klass in _LEAD_CLASSES:
        table[first : last + 1] = klass.encode() * (last - first + 1)
    return bytes(table)


_CLASS_TABLE = _class_table()
_CONTINUATION = bytes(range(0x80, 0xC0))
_ASCII_AND_CONTINUATION = bytes(range(0xC0))
# Latin Extended Additional (U+1E00-U+1EFF, Vietnamese ệ ạ ả ...) shares its lead byte with
# Georgian and Khmer: its three-byte prefix is rewritten to a Latin lead byte before classing.
_VIET = (b"\xe1\xb8", b"\xe1\xb9", b"\xe1\xba", b"\xe1\xbb")


# Secondary maps over class bytes, for counting run starts with two-byte patterns.
def _map(keep: str, default: str = ".") -> bytes:
    table = bytearray(default.encode() * 256)
    for src in keep:
        table[ord(src)] = ord("a")
    return bytes(table)


_LETTERS = _map("luL")
_DIGITS = _map("d")
_PUNCT = _map("pqwo")
_SPACES = _map("s")
# Letters, the marks that join the word after them (_ .) and line breaks, for pair counts.
_CONTEXT = bytearray(_map(""))
for _src, _dst in (("l", "l"), ("u", "l"), ("L", "l"), ("w", "w"), ("o", "w"), ("n", "n")):
    _CONTEXT[ord(_src)] = ord(_dst)
_CONTEXT = bytes(_CONTEXT)
# Scripts written with spaces between words: a word start costs a token of its own.
_SCRIPT_WORDS = {"y": "cyrillic", "g": "greek", "r": "hebrew", "b": "arabic", "K": "hangul", "i": "indic"}
_SCRIPTS = [(k.encode(), name, name + "_word") for k, name in _SCRIPT_WORDS.items()]
_SCRIPT_MAP = bytearray(_map(""))
for _k in _SCRIPT_WORDS:
    _SCRIPT_MAP[ord(_k)] = ord(_k)
_SCRIPT_MAP = bytes(_SCRIPT_MAP)

# A text's Latin words are English (one token each, mostly) or not (split more). "th" per Latin
# letter tells them apart (18 per 1000 letters in English prose, 14 in code, at most 1.4 in the
# other Latin languages of the corpus but Vietnamese, which has its own feature); code whose
# identifiers hide their English in snake_case is told by its underscores (11-22 per 1000).
_TH_PER_LETTER = 0.015
_UNDERSCORE_AS_TH = 0.3
_ENGLISH_SAMPLE = 16_000  # characters
# Traditional Chinese costs more per character than simplified: frequent characters that
# differ between the two, counted at the start of a text, say which one it is.
_TRADITIONAL_RE = re.compile("[無數為時個對開後過來這們說會國學經現還動體於與檔選項設資]")
_SIMPLIFIED_RE = re.compile("[无数为时个对开后过来这们说会国学经现还动体于与档选项设资]")
_HAN_SAMPLE = 2000  # characters
# The Han characters o200k_base holds as one token each (``python tests/core/calibrate_tokens.py
# --han-table`` prints this list); any other Han character costs two or three byte pieces, and
# literary or rare-word text has many more of them than technical text.
_HAN_SINGLE = (
    "一丁七万丈三上下不与专且世丘业东丝两严並丨个中丰串临丶丸丹为主丽举乃久么义之乌乎乐乔乗乘乙九也习乡书买乱乳乾亂了予争事二"
    "于亏云互五井亚些亞亡交亦产亩享京亭亮亲人亿什仁仅今介仍从仓仔仕他付仙代令以仪们仲件价任份企伊伍伏休众优伙会伝伟传伤伦伯估"
    "伴伸似但位低住佐体何余佛作你佣佩佳使來例供依侠価侣侧侯侵便係促俄俊俗保信修俱俺個倍們倒候借倡値倫债值倾假偏做停健側偶偷偿"
    "傅備储催傳傷働像僕價億優儿允元兄充兆先光克免児兑兒兔党入內全兩八公六兰共关兴兵其具典养兼兽内円冈冊册再冒写军农冠冬冰冲决"
    "况冷冻净准凉凌减凝几凡凤処凭凯凰凸出击函刀分切刊刑划列刘则刚创初删判別利别到制刷券刺刻剂則削前剑剤剧剩剪副割創劇力办功加"
    "务动助努励劲劳効势勇勒動務勝募勢勤勿包化北匙匹区医區十千升午半华协卒卓協单卖南単博占卡卢卧卫印危即却卷卸厂厅历厉压厕厘厚"
    "原厦厨去县参參又叉及友双反収发叔取受变口古句另只叫召可台史右叶号司吃各合吉吊同名后吐向吕吗君吞吟否吧吨含听启吴吸吹吻吾呀"
    "呈告员呢周味呵呻呼命咋和咖咨咪品哈响員哥哦哪哭哲唐售唯唱商啊問啥啦啪善喊喘喜喝單営喷嗎嗯嘉嘎嘛嘴嘿噜器四回因团団园困囲図"
    "围固国图圆圈國園圖團土圣在地圳场圾址坂均坊坏坐坑块坚坛坝坡坦坪垃型埃城埔域培基堂堡報場堵塑塔塘塞填境墓増墙增墨壁壇士壮声"
    "売处备変复夏夕外多夜够夢大天太夫央失头夹夺奇奈奉奋奏契奔奖套奥女奴奶奷奸她好如妇妈妓妖妙妞妮妹妻姆始姐姑姓委姚姜姨姿威娃"
    "娇娘娛娜娱婆婚婦婷媒媳媽嫁嫂嫌嫩嬉子孔孕字存孙孟季孤学孩學宁它宅宇守安宋完宏宗官定宜宝实実宠审客宣室宫宮害宴家容宽宾宿寄"
    "密富寒寓寝察實寨寫寶寸对寺寻导対寿封専射将將專尊尋對導小少尔尖尚尝尤就尸尺尼尽尾尿局屁层居届屋屏展属履屯山岁岗岛岡岩岭岳"
    "岸峡峰島崎川州巡工左巧巨差己已巴巻币市布帅师希帐帖帝带師席帮帯帰帳帶常帽幅幕干平年并幸幻幼幽广広庄庆床序库应底店府废度座"
    "庫庭康廉廣延廷建开异弃弄弊式引弗弘弟张弱張強弹强归当录形彦彩彰影役彻彼往征径待很律後徐徒得從御復循微徳徴德徽心必忆忍志忘"
    "忙応忠忧快念忽怀态怎怒怕怖思怡急性怪总恋恐恒恢恩息恶悉悟悠患悦您悪悲情惊惑惜惠惨惯想意愛感愿慈態慎慢慧慰懂應戀戏成我戒或"
    "战戦截戰戲戴戶户戸戻房所手才扎扑扒打払托扣执扩扫扬扰扱扶批找承技把抓投抗折抜択抢护报披抱抵押抽担拆拉拍拒拓拔拖拘招拜拟拥"
    "拨择括拳拼拾拿持挂指按挑挡挣挥振挺捕损换据捷掃授掉掌排掛採探接控推措掲揉描提插換握揭援搏搜搞搬搭携摄摆摇摘摩摸撃撑撒撞撤"
    "播撮撸擊操據擦攝支收改攻放政故效敌敏救敗教敢散敦敬数整敵數文斗料斤断斯新方於施旁旅旋族旗无既日旦旧旨早旬旭时旺昂昆昌明易"
    "昔星映春昨昭是昼显時晋晒晓晚晨普景晰晴晶智暂暇暑暖暗暨暮暴曜曝曰曲更書曹曼曾替最會月有朋服朗望朝期木未末本札术朱机杀杂权"
    "杆杉李杏材村杜束条来杨杭杯杰東松板极构析林枚果枝枪架柄柏某染柔柜查柱柳柴査标栋栏树栗校株样核根格桂桃框案桌桑档桥桶梁梅條"
    "梦梨梯械检棋棒棚森植椒検楚業極楼楽概榜構様槽樂樓標模樣横橋機橹橾權欠次欢欣欧欲欺款歉歌歓歡止正此步武歩歲歳歴歷死殊残殖段"
    "殺毁毅母毎每毒比毕毛毫氏民气気氣氧水永汁求汇汉汗江池污汤決汽沁沃沈沉沒沖沙沟没沢沪河油治沿況泄泉泊法泛泡波泥注泰泳泽洁洋"
    "洗洛洞津洪洲活派流浅浆测济浓浜浦浩浪浮浴海消涉涓涙涛润涨涩涯液涵淘淡淫深混添清済渐減渠渡温測港游湖湘湾湿満源準溪滋滑滚满"
    "滤滨滴滿漂漏演漢漫潔潘潜潭潮澡澳激灣火灭灯灰灵灾炉炎炒炮炸点為炼烈烟烦烧热無焦然焼煌煙煤照熊熟熱燃燕營爆爰爱爵父爷爸爽片"
    "版牌牙牛牡牢牧物牲特犬犯状狂狐狗狠独狸狼猎猛猜猪猫献猴獸玄率玉王玖玛玩环现玲玻珍珠班現球理琪琳琴瑞璃環瓜瓣瓦瓶甘甚甜生產"
    "産用田由甲申电男甸町画畅界留略番畫異當疆疑疗疫疯疲疼疾病症痛療癌発登發白百的皆皇皮盆盈益盐监盒盖盗盘盛盟監盤目直相盾省眉"
    "看県真眠眼着睛睡督瞬知矩短石矿码砂研砖破础硕硬确碍碎碑碰確碼磁磨示礼社祖祝神祥票祭禁福禧离禽禾秀私秋种科秒秘租秦积称移程"
    "稍税種稱稳稿穆積穴究空穿突窍窗窝窥立站竞竟章童端競竹笑笔符第筆等筋筑答策筛筹签简算管箭箱節篇築篮簡籍米类粉粒粗粤粮精糕糖"
    "系紀約紅納純紙級素索紧紫累細紹終組経結絡給統絲絶經続維網総緒線締編縄縮總績繁續纠红约级纪纬纯纲纳纵纷纸纹纽线练组细织终绍"
    "经绑结绕绘给络绝统继绩绪续维综绿缓编缘缩缴缺网罗罚罩罪置署羅羊美羞群義羽翁翌習翔翠翻翼耀老考者而耐耗耳聊职联聘聚聞聪聯聲"
    "職肃肉肌肖股肤肥肩肯育肺胃胆背胎胖胜胞胡胶胸能脂脑脚脱脸腐腕腰腳腹腾腿膜膽臀臣自臭至致臺與興舍舒舔舗舞舟航般舰船艇良色艳"
    "艷艺艾节芝芬芯花芳芸芽苍苏苑苗若苦英范茶茸草荐荒荡荣药荷莉莎莓莞莫莱莲获菌菜華菲萄萌萝营萨萬落葉著葛葡董蒂蒙蒲蓝蔡蕉蕩薄"
    "薦薪薬藏藝藤虎虐虑處虚號虫虹虽蛇蛋蛛蜂蜜蝶融血行術街衛衡衣补表袋袖袜被袭裁裂装裏裕裙補裝裤裸製襪西要覆見規視覚覧親観覽觀"
    "见观规视览觉角解触言訂計訊討記訪設許訳診証評詞詢試話詳誉誌認誘語說説読誰課調談請論講謝證識警議護讀變讓计订认讨让训议讯记"
    "讲许论设访诀证评识诈诉诊词译试诗诚话询该详语误诱说请诸诺读课谁调谈谋谓谜谢谨谱谷豆豊象豪豹貌負財貨販責買貸費貼賀資賞質購"
    "贝负贡财责贤败账货质贫购贯贴贵贷贸费赁资赋赌赏赔赖赚赛赞赠赢赤赫走赴赵赶起超越趋趣足跃跌跑距跟跨路跳践踏踩踪躁身車軍転軽"
    "較載輪輯輸轉车轨轩转轮软轴轻载较辅辆辉辑输辖辛辞辣辦辨辰辱農边辺込辽达迁迅过迈迎运近返还这进远违连迟迪迫述迷迹追退送适逃"
    "逆选逊透逐递途這通速造連週進逸逻逼遂遇遊運遍過道達違遗遠遣遥適遭遮遵選避邀還邑那邦邪邮邻郎郑部郭郵都配酒酷酸醉醒醫采释里"
    "重野量金鉄鉴銀錄錯録鍵鏈鐘鑫针钟钢钥钮钱钻铁铃铜铭银铺链销锁锅锋锐错锡锦键镇镜長长門閉開間関閱閲關门闪闭问闲间闻阁阅队阪"
    "防阳阴阵阶阻阿附际陆陈陌降限院除险陪陰陵陶陷険陽隆隊階随隐隔際障难雀雄雅集雑雕雙雞離難雨雪零雷電需震霍霞露霸青靖静非靠面"
    "革鞋韓韩音響頁頂頃項順須預領頭頻頼題額顔願類页顶项顺须顾顿预领频颖颗题颜额風风飛飞食飯飲養餐館饭饮饰馆馈首香馨馬駅験驗马"
    "驰驱驶驻驾验骑骗骚骤骨骰體高鬼魂魅魏魔魚鱼鲁鲜鲸鳥鸟鸡鸣鸭鸿鹅鹏鹰鹿麗麟麦麻麼黃黄黎黑黒默點鼎鼓鼠鼻齐齢龄龍龙"
)
_RARE_HAN: list[Any] = []  # the compiled pattern, built on first use (import stays light)


def _rare_han(text: str) -> int:
    if not _RARE_HAN:
        _RARE_HAN.append(re.compile("[^\\x00-\\u4dff\\ua000-\\U0010ffff" + _HAN_SINGLE + "]"))
    return len(_RARE_HAN[0].findall(text))
# Accented letters tell the Latin languages apart (ł ż ą: Polish, ř ě ů: Czech, å ä ö: Swedish,
# ő ű: Hungarian, ė į ų: Lithuanian, ș ț: Romanian ...) and their tokens differ: each has its own weight, its share measured at a text's start.
ACCENT_WEIGHTS: dict[str, float] = {"ä": 1.609, "å": 0.8059, "ö": 0.6534, "ü": 0.8291, "é": 0.4858, "è": 1.0355, "ł": 2.2294, "ż": 0.2855, "ą": 1.9697, "ę": 0.0, "ó": 1.0867, "ś": 1.0035, "ć": 0.8154, "ń": 0.0, "č": 1.6899, "ř": 0.6882, "ž": 1.6044, "ě": 0.0, "ů": 0.8423, "ý": 0.5011, "á": 0.4505, "í": 0.3319, "à": 1.6479, "ò": 5.5602, "ù": 0.9813, "ì": 0.0, "ã": 0.0, "õ": 2.9891, "ç": 0.0, "ñ": 0.0, "ş": 0.9669, "ğ": 0.6709, "ı": 0.5196, "ß": 0.0, "ê": 0.0, "â": 0.5858, "ô": 0.0, "î": 1.4623, "š": 1.7322, "ú": 1.1412, "ő": 3.6437, "ű": 1.9258, "ė": 2.4743, "į": 2.7776, "ų": 1.6254, "ū": 1.2055, "æ": 1.9307, "ø": 2.1261, "ș": 2.2283, "ț": 1.9018, "ă": 1.306, "đ": 0.0, "ā": 0.103, "ē": 0.103, "ī": 0.103, "ï": 1.2986, "ë": 0.0}
_ACCENTS = "".join(ACCENT_WEIGHTS)
_ACCENT_RE = re.compile(f"[{_ACCENTS}]")
_ACCENT_SAMPLE = 3000  # characters
# ASCII letters that are rare in English and the Romance languages but frequent in the Finnic,
# Baltic, Slavic and Germanic ones: their share (at a text's start) scales the foreign letters.
_RARE_LETTERS = "kwzjyv"
_RARE_KEYS = [(c, f"rare_{c}") for c in _RARE_LETTERS]

# Weights fitted against o200k_base on the tune split of tests/data/tokens/corpus (see module
# docstring). Keys name the features; a ``_en``/``_x`` pair is one feature split by the share of
# English in the text, the ``han_*`` triple one feature split by simplified/traditional/Japanese.
WEIGHTS: dict[str, float] = {
    "word_en": 0.4736, "word_x": 0.4397,          # a run of Latin letters
    "letter_en": 0.1024, "letter_x": 0.1195,     # each Latin letter: long or rare words split more
    # foreign letters, by their share of k w z j y v
    "rare_k": 0.5888, "rare_w": 0.0, "rare_z": 0.9839, "rare_j": 0.4107, "rare_y": 0.0837, "rare_v": 0.5348,
    "upper": 0.1007,        # capitals: acronyms and base64 split more
    "camel": 0.2988,        # lower->upper boundary (camelCase) starts a new piece
    "latin_ext": 0.6645,     # accented Latin letters other than those below
    **{f"accent_{c}": w for c, w in ACCENT_WEIGHTS.items()},
    "viet": 0.1293,          # Latin Extended Additional (Vietnamese)
    "digit_run": 1.3357,     # o200k groups digits by at most three
    "digit_triple": 0.5799,
    "space_digit": 0.8074,   # a space does not merge into the number after it
    "punct_run": 1.0273,
    "join_word": -0.4462,     # _kind .path: an underscore or a dot before a word nearly always does
    "punct_newline": -1.03, # ):\n  a mark's piece takes the line breaks after it
    "newline": 1.2355,
    "blank_line": -0.9895,    # \n\n, \n\n\n are one piece each (fitted negative)
    "line_word": 0.809,     # a word opening a line has no space to merge with: rarer pieces
    "indent": 1.1061,        # a run of two or more spaces (indentation, alignment)
    "han_s": 0.6733, "han_t": 0.8585, "han_j": 0.9413,
    "han_rare": 1.3407,      # a Han character o200k has no token for
    "space_cjk": 0.7105,     # 加 上 使 用: a space before a Han or kana character is a piece of its own
    "cjk_punct": 0.937,     # 。、「」 merge with their neighbours
    "kana": 0.5674,
    "fullwidth": 0.7961,     # ，：（）
    "hangul": 0.3833, "hangul_word": 0.9397,
    "cyrillic": 0.0838, "cyrillic_word": 1.6007,
    "greek": 0.4164, "greek_word": 0.0,
    "hebrew": 0.4621, "hebrew_word": 0.0733,
    "arabic": 0.3822, "arabic_word": 0.0252,
    "devanagari": 0.4206, "thai": 0.4165, "indic": 0.3755, "indic_word": 0.0,
    "symbol": 0.5732,        # “ ” — … arrows, maths
    "emoji": 1.7803,
}
BIAS = 0.0
# For the length bound: the features one character can feed, by kind of character (a pair or a
# run start is counted on its first character; a group in a tuple feeds one of its members:
# the two parts of a split feature, the script classes, the scripts' word starts).
_SCRIPT_CLASSES = ("latin_ext", "viet", *(f"accent_{c}" for c in _ACCENTS), "han_s", "han_t", "han_j",
                   "kana", "cjk_punct", "fullwidth", "hangul", "cyrillic", "greek", "hebrew", "arabic",
                   "devanagari", "thai", "indic", "symbol", "emoji")
_SCRIPT_WORD = tuple(f"{name}_word" for name in ("cyrillic", "greek", "hebrew", "arabic", "hangul", "indic"))
_RARE = tuple(f"rare_{c}" for c in _RARE_LETTERS)
_PER_CHARACTER = {
    "letter": [("word_en", "word_x"), ("letter_en", "letter_x"), "upper", "camel", _RARE, _SCRIPT_CLASSES],
    "digit": ["digit_run", "digit_triple"],
    "space": ["indent", ("space_digit", "space_cjk")],
    "newline": ["newline", "line_word", "punct_run"],
    "mark": ["punct_run", "join_word", "punct_newline"],
    "other script": [_SCRIPT_CLASSES, _SCRIPT_WORD, "han_rare", "punct_run"],
}
_NON_ASCII = (
    "latin_ext", *(f"accent_{c}" for c in _ACCENTS), "viet", "han_s", "han_t", "han_j", "han_rare", "space_cjk", "cjk_punct", "kana", "fullwidth", "hangul",
    "hangul_word", "cyrillic", "cyrillic_word", "greek", "greek_word", "hebrew", "hebrew_word",
    "arabic", "arabic_word", "devanagari", "thai", "indic", "indic_word", "symbol", "emoji",
)
_NO_NON_ASCII = dict.fromkeys(_NON_ASCII, 0)


def _runs(mapped: bytes) -> int:
    return mapped.count(b".a") + mapped.startswith(b"a")


_SAMPLE_WINDOWS = 4
_SAMPLE_WINDOW = 16_384  # class bytes (characters)


def _sample(cls: bytes) -> tuple[bytes, float]:
    """Up to four evenly spaced windows of a long text's class bytes, and the factor that
    scales a count on them to the whole text (the whole text itself when it is short)."""
    n = len(cls)
    if n <= 2 * _SAMPLE_WINDOWS * _SAMPLE_WINDOW:
        return cls, 1.0
    step = (n - _SAMPLE_WINDOW) // (_SAMPLE_WINDOWS - 1)
    sample = b".".join(cls[i * step : i * step + _SAMPLE_WINDOW] for i in range(_SAMPLE_WINDOWS))
    return sample, n / (_SAMPLE_WINDOWS * _SAMPLE_WINDOW)


def _features(text: str) -> dict[str, float]:
    """Counts the estimate is a weighted sum of (exposed for calibration; a feature that is
    absent counts zero)."""
    if text.isascii():
        raw = text.encode("ascii")
        cls = raw.translate(_CLASS_TABLE)
        ascii_only = True
    else:
        raw = text.encode("utf-8", "surrogatepass")
        viet = 0
        if b"\xe1" in raw:
            n = len(raw)
            for prefix in _VIET:
                raw = raw.replace(prefix, b"\xc3")
            viet = n - len(raw)
        cls = raw.translate(_CLASS_TABLE, _CONTINUATION)
        ascii_only = False
    letters = cls.translate(_LETTERS)
    digits = cls.translate(_DIGITS)
    n_letters = letters.count(b"a")
    words = _runs(letters)
    # The share of English is read at the start of a long text (one class byte per character,
    # so the first _ENGLISH_SAMPLE class bytes are the first _ENGLISH_SAMPLE characters).
    in_head = letters.count(b"a", 0, _ENGLISH_SAMPLE) if len(text) > _ENGLISH_SAMPLE else n_letters
    if in_head:
        marks = text.count("th", 0, _ENGLISH_SAMPLE) + _UNDERSCORE_AS_TH * text.count("_", 0, _ENGLISH_SAMPLE)
        english = min(1.0, marks / (_TH_PER_LETTER * in_head))
    else:
        english = 0.0
    foreign = 1.0 - english
    # Second-order features (how pieces join) are counted on a sample of a long text.
    sample, scale = _sample(cls)
    context = sample.translate(_CONTEXT)
    spaces = sample.translate(_SPACES)
    f: dict[str, float] = {
        "word_en": words * english, "word_x": words * foreign,
        "letter_en": n_letters * english, "letter_x": n_letters * foreign,
        "upper": cls.count(b"u"),
        "digit_run": _runs(digits),
        "digit_triple": digits.count(b"aaa"),
        "punct_run": _runs(cls.translate(_PUNCT)),
        "newline": cls.count(b"n"),
        "camel": sample.count(b"lu") * scale,
        "space_digit": sample.count(b"sd") * scale,
        "join_word": context.count(b"wl") * scale,
        "punct_newline": sample.count(b"pn") * scale,
        "blank_line": sample.count(b"nn") * scale,
        "line_word": context.count(b"nl") * scale,
        "indent": (spaces.count(b".aa") + spaces.startswith(b"aa")) * scale,
    }
    if foreign and n_letters:
        head = text[:_ACCENT_SAMPLE]
        in_head = letters.count(b"a", 0, _ACCENT_SAMPLE)
        if in_head:
            per = n_letters * foreign / in_head
            for c, key in _RARE_KEYS:
                n = head.count(c)
                if n:
                    f[key] = n * per
    if ascii_only:
        return f
    # Non-ASCII classes are counted on the non-ASCII characters alone: a short string for
    # code or prose with a few accents, one byte per character for CJK.
    wide = raw.translate(_CLASS_TABLE, _ASCII_AND_CONTINUATION)
    latin_ext = wide.count(b"L") - viet
    if latin_ext:
        head = text[:_ACCENT_SAMPLE]
        scale = 1.0
        if len(head) < len(text):
            in_head = head.encode("utf-8", "surrogatepass").translate(_CLASS_TABLE, _ASCII_AND_CONTINUATION).count(b"L")
            scale = latin_ext / in_head if in_head else 0.0
        for c, n in Counter(_ACCENT_RE.findall(head)).items():
            f["accent_" + c] = n * scale
            latin_ext -= n * scale
        f["latin_ext"] = max(0.0, latin_ext)
    if viet:
        f["viet"] = viet
    for key, klass in (("symbol", b"q"), ("emoji", b"e"), ("fullwidth", b"f")):
        n = wide.count(klass)
        if n:
            f[key] = n
    scripts = None
    for klass, name, word in _SCRIPTS:
        n = wide.count(klass)
        if n:
            f[name] = n
            if scripts is None:  # one pass maps every spaced script to itself, the rest to "."
                scripts = cls.translate(_SCRIPT_MAP)
            f[word] = scripts.count(b"." + klass) + scripts.startswith(klass)
    if "indic" in f:
        f["thai"] = raw.count(b"\xe0\xb8") + raw.count(b"\xe0\xb9")
        f["devanagari"] = raw.count(b"\xe0\xa4") + raw.count(b"\xe0\xa5")
        f["indic"] -= f["thai"] + f["devanagari"]
    kana = cjk = wide.count(b"k")
    if cjk:
        f["cjk_punct"] = raw.count(b"\xe3\x80")  # U+3000-U+303F: 。、「」 and friends
        kana = f["kana"] = cjk - f["cjk_punct"]
    han = wide.count(b"H")
    if han or cjk:
        f["space_cjk"] = (sample.count(b"sH") + sample.count(b"sk")) * scale
    if han:
        japanese = min(1.0, 3 * kana / (kana + han))
        head = text[:_HAN_SAMPLE]
        trad = len(_TRADITIONAL_RE.findall(head))
        simp = len(_SIMPLIFIED_RE.findall(head))
        traditional = (trad + 0.5) / (trad + simp + 1)
        f["han_rare"] = _rare_han(text)
        f["han_j"] = han * japanese
        f["han_t"] = han * (1 - japanese) * traditional
        f["han_s"] = han * (1 - japanese) * (1 - traditional)
    return f


def estimate_text(text: str) -> int:
    """Estimated o200k_base token count of ``text`` (0 for the empty string)."""
    if not text:
        return 0
    weights = WEIGHTS
    total = BIAS
    for key, value in _features(text).items():
        total += weights[key] * value
    return max(1, round(total))


# -- images ----------------------------------------------------------------------------------

# When an image's size cannot be read: a full-size image under either provider's rule.
UNKNOWN_IMAGE_TOKENS = 1600


def _image_size(data: str) -> tuple[int, int] | None:
    """Width and height from the header of a base64 PNG, GIF, WebP or JPEG (or None)."""
    try:
        head = base64.b64decode(data[:64_000] + "=" * (-len(data[:64_000]) % 4), validate=False)
    except (ValueError, TypeError):
        return None
    if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24:
        return struct.unpack(">II", head[16:24])
    if head[:6] in (b"GIF87a", b"GIF89a") and len(head) >= 10:
        return struct.unpack("<HH", head[6:10])
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP" and len(head) >= 30:
        kind = head[12:16]
        if kind == b"VP8X":
            w = 1 + int.from_bytes(head[24:27], "little")
            h = 1 + int.from_bytes(head[27:30], "little")
            return w, h
        if kind == b"VP8 " and len(head) >= 30:
            w, h = struct.unpack("<HH", head[26:30])
            return w & 0x3FFF, h & 0x3FFF
        if kind == b"VP8L" and len(head) >= 25:
            bits = int.from_bytes(head[21:25], "little")
            return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
        return None
    if head[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(head):
            if head[i] != 0xFF:
                i += 1
                continue
            marker = head[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                i += 2
                continue
            length = struct.unpack(">H", head[i + 2 : i + 4])[0]
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                h, w = struct.unpack(">HH", head[i + 5 : i + 9])
                return w, h
            i += 2 + length
    return None


def estimate_image(width: int | None = None, height: int | None = None, data: str | None = None) -> int:
    """Tokens an image costs: the larger of the Anthropic and OpenAI (high detail) rules."""
    if (not width or not height) and data:
        size = _image_size(data)
        if size:
            width, height = size
    if not width or not height or width <= 0 or height <= 0:
        return UNKNOWN_IMAGE_TOKENS
    # Anthropic: long side scaled to at most 1568 px, about (w*h)/750 tokens.
    scale = min(1.0, 1568 / max(width, height))
    anthropic = math.ceil(width * scale * height * scale / 750)
    # OpenAI high detail: fit in 2048x2048, short side to 768, 170 per 512-px tile plus 85.
    w, h = float(width), float(height)
    s = min(1.0, 2048 / max(w, h))
    w, h = w * s, h * s
    s = min(1.0, 768 / min(w, h))
    w, h = w * s, h * s
    openai = 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)
    return max(anthropic, openai)


# -- messages --------------------------------------------------------------------------------

# Framing the providers add per message and per tool call (role markers, ids, separators).
MESSAGE_OVERHEAD = 4
CALL_OVERHEAD = 8
_CACHE_KEY = "token_estimate"


def _block_tokens(block: Any) -> int:
    kind = getattr(block, "type", None)
    if kind in ("text", "summary"):
        return estimate_text(block.text)
    if kind == "thinking":
        # Redacted thinking is an opaque blob the provider still counts.
        return estimate_text(block.text) + (len(block.signature or "") // 4 if block.redacted else 0)
    if kind == "image":
        return estimate_image(block.width, block.height, block.data)
    if kind == "tool_call":
        args = block.raw_arguments
        if args is None:
            args = json.dumps(block.arguments, ensure_ascii=False, separators=(",", ":"))
        return CALL_OVERHEAD + estimate_text(block.name) + estimate_text(args) + estimate_text(block.id)
    return 0


def estimate_message(message: Any) -> int:
    """Estimated tokens of one message, cached on the (immutable) message."""
    cache = getattr(message, "wire_cache", None)
    if cache is not None:
        hit = cache.get(_CACHE_KEY)
        if hit is not None:
            return hit
    total = MESSAGE_OVERHEAD + sum(_block_tokens(b) for b in message.content)
    if getattr(message, "role", None) == "tool":
        total += estimate_text(message.tool_call_id)
    if cache is not None:
        cache[_CACHE_KEY] = total
    return total


def estimate_messages(messages: Iterable[Any]) -> int:
    return sum(estimate_message(m) for m in messages)


# A text's estimate is at most this many tokens per character (see _PER_CHARACTER).
def _max_tokens_per_char(long: bool = False) -> int:
    """Tokens a character can add at most; ``long``: in a text whose pair counts are sampled
    and scaled, where a character may stand for more than its own pairs."""
    def weight(item: str | tuple[str, ...]) -> float:
        return max(0.0, *(WEIGHTS[k] for k in item)) if isinstance(item, tuple) else max(0.0, WEIGHTS[item])

    if long:
        return math.ceil(sum(max(0.0, w) for w in WEIGHTS.values()) + max(BIAS, 0.0))
    return math.ceil(max(sum(map(weight, items)) for items in _PER_CHARACTER.values()) + max(BIAS, 0.0))


MAX_TOKENS_PER_CHAR = _max_tokens_per_char()
_MAX_TOKENS_PER_CHAR_LONG = _max_tokens_per_char(long=True)
_LONG = 2 * _SAMPLE_WINDOWS * _SAMPLE_WINDOW  # texts longer than this have their pair counts sampled


def _text_bound(text: str | None) -> int:
    if not text:
        return 0
    return (MAX_TOKENS_PER_CHAR if len(text) <= _LONG else _MAX_TOKENS_PER_CHAR_LONG) * len(text)


def estimate_bound(messages: Iterable[Any]) -> int | None:
    """An upper bound of ``estimate_messages(messages)`` from lengths alone, without running
    the estimator (a message already estimated counts exactly); None when a message holds an
    image, whose estimate does not follow from its length."""
    total = 0
    for m in messages:
        hit = m.wire_cache.get(_CACHE_KEY) if hasattr(m, "wire_cache") else None
        if hit is not None:
            total += hit
            continue
        total += MESSAGE_OVERHEAD
        if getattr(m, "role", None) == "tool":
            total += _text_bound(m.tool_call_id)
        for b in m.content:
            kind = getattr(b, "type", None)
            if kind == "image":
                return None
            if kind in ("text", "summary", "thinking"):
                total += _text_bound(b.text) + (len(b.signature or "") // 4 if kind == "thinking" else 0)
            elif kind == "tool_call":
                args = b.raw_arguments
                if args is None:
                    args = json.dumps(b.arguments, ensure_ascii=False, separators=(",", ":"))
                total += CALL_OVERHEAD + _text_bound(b.name) + _text_bound(args) + _text_bound(b.id)
    return total


class RunningEstimate:
    """``estimate_messages`` of a history that grows by appends, without re-summing it.

    Between two requests of a run the history is the previous one plus what was appended (the
    same message objects), so the sums of the previous call are kept and only the new messages
    are estimated; a history that is a prefix of the last one is answered from the sums. Any
    other change (a rewrite) is found by object identity and re-summed from where it differs.
    """

    def __init__(self) -> None:
        self._messages: list[Any] = []
        self._sums: list[int] = [0]  # _sums[i]: tokens of _messages[:i]

    def total(self, messages: Sequence[Any]) -> int:
        known = self._messages
        k = shared_prefix(known, messages)
        if k == len(messages):
            return self._sums[k]
        del known[k:]
        del self._sums[k + 1:]
        total = self._sums[k]
        for m in messages[k:]:
            total += estimate_message(m)
            known.append(m)
            self._sums.append(total)
        return total


_TOOL_KEY = "estimate:tool"


def _tool_estimate(spec: Any) -> int:
    schema = json.dumps(spec.input_schema, ensure_ascii=False, separators=(",", ":"))
    return CALL_OVERHEAD + estimate_text(spec.name) + estimate_text(spec.description) + estimate_text(schema)


def estimate_tools(tools: Sequence[Any]) -> int:
    """Tool specs as the model sees them: name, description and JSON schema (cached on the spec)."""
    total = 0
    for spec in tools:
        cache = getattr(spec, "wire_cache", None)
        if cache is None:
            total += _tool_estimate(spec)
            continue
        hit = cache.get(_TOOL_KEY)
        if hit is None:
            hit = cache[_TOOL_KEY] = _tool_estimate(spec)
        total += hit
    return total


def estimate_request(system: str, messages: Sequence[Any], tools: Sequence[Any] = ()) -> int:
    """Estimated input tokens of a whole request: system prompt, tool specs and history."""
    return estimate_text(system) + estimate_tools(tools) + estimate_messages(messages)
