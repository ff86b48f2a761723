"""The fitted data of the token estimator: per-feature weights and the single-token Han table.

The weights are fitted against o200k_base on the ``tune`` split of ``tests/data/tokens/corpus``
(``python tests/core/calibrate_tokens.py --fit --write`` rewrites the literals below; never fit
on the ``holdout`` split). The features they weigh are counted by ``token_features``.
"""

from __future__ import annotations

# The Han characters o200k_base holds as one token each (``python tests/core/calibrate_tokens.py
# --han-table`` prints this list); any other Han character costs two or three byte pieces, and
# literary or rare-word text has many more of them than technical text.
HAN_SINGLE = (
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

# Blocks no weight is fitted on (token_scripts.fitted): per UTF-8 lead byte, for each second
# byte 80-BF, what o200k_base spends on one of those characters alone, in half tokens rounded up
# (0: a fitted block). ``python tests/core/calibrate_tokens.py --block-costs`` prints it.
BLOCK_COSTS: dict[int, str] = {
    0xDC: "4444444444444444444444444444444444444444444444444444444444444444",
    0xDD: "4444444444444444444444444444444444444444444444444444444444444444",
    0xDE: "4444444444444444444444444444444444444444444444444444444444444444",
    0xDF: "4444444444444444444444444444444444444444444444444444444444444444",
    0xE0: "0000000000000000000000000000000066660000000000000000000000440000",
    0xE1: "0000666600000066666666666666660066666666666666666666466600004464",
    0xE2: "0000000000000000000000000000000066660000000000006666666666666666",
    0xEA: "6666666666666666666666666666666666666666666666660000000000000000",
    0xEF: "4444666666666666666666666666666666666666666646666666466600000000",
    0xF0: "0000000000000000888888888888868088888888888888888888888888888888",
    0xF1: "8888888888888868888888888888888688888888888888888888888886888888",
    0xF2: "8888888888888888688888888888888888888888888888888888888888888888",
    0xF3: "8888888888888888888888888888888888888888888888888888888888888888",
    0xF4: "8888888888888888000000000000000000000000000000000000000000000000",
}

# Accented letters tell the Latin languages apart (ł ż ą: Polish, ř ě ů: Czech, å ä ö: Swedish,
# ő ű: Hungarian, ė į ų: Lithuanian, ș ț: Romanian ...) and their tokens differ: each has its own weight, its share measured at a text's start.
ACCENT_WEIGHTS: dict[str, float] = {"ä": 0.8644, "å": 1.0324, "ö": 0.3378, "ü": 0.3283, "é": 0.0359, "è": 0.7731, "ł": 0.4897, "ż": 0.0, "ą": 1.0095, "ę": 0.1169, "ó": 0.6255, "ś": 0.0, "ć": 0.4087, "ń": 0.0363, "č": 0.6334, "ř": 0.434, "ž": 0.9284, "ě": 0.2673, "ů": 0.3959, "ý": 0.0649, "á": 0.0, "í": 0.1048, "à": 1.2132, "ò": 2.5295, "ù": 0.7984, "ì": 0.2731, "ã": 0.0, "õ": 1.5432, "ç": 0.0, "ñ": 1.0846, "ş": 0.5071, "ğ": 0.3584, "ı": 0.0228, "ß": 0.0, "ê": 0.3182, "â": 0.6886, "ô": 0.0, "î": 1.457, "š": 1.2409, "ú": 0.576, "ő": 0.8227, "ű": 0.7187, "ė": 0.9661, "į": 1.005, "ų": 0.708, "ū": 1.5358, "æ": 1.1187, "ø": 1.3071, "ș": 0.8446, "ț": 0.9544, "ă": 0.7835, "đ": 0.0, "ā": 0.8801, "ē": 0.4336, "ī": 0.2907, "ï": 1.2415, "ë": 0.6585}

# Weights fitted against o200k_base on the tune split of tests/data/tokens/corpus (see module
# docstring). Keys name the features; a ``_en``/``_x`` pair is one feature split by the share of
# English in the text, the ``han_*`` triple one feature split by simplified/traditional/Japanese.
WEIGHTS: dict[str, float] = {
    "word_en": 0.7105, "word_x": 0.66,          # a run of Latin letters
    "letter_en": 0.0646, "letter_x": 0.069,     # each Latin letter: long or rare words split more
    # 4-grams of letters o200k's vocabulary holds in no token, in up to 3, in up to 20 (token_grams)
    "gram_0": 0.4209, "gram_0_en": 0.5341, "gram_1": 0.1787, "gram_2": 0.0708,
    # foreign letters, by their share of k w z j y v
    "rare_k": 0.144, "rare_w": 0.0, "rare_z": 0.2644, "rare_j": 0.0377, "rare_y": 0.0, "rare_v": 0.1814,
    "upper": 0.0746,        # capitals: acronyms and base64 split more
    "camel": 0.0,        # lower->upper boundary (camelCase) starts a new piece
    "latin_ext": 0.7013,     # accented Latin letters other than those below
    **{f"accent_{c}": w for c, w in ACCENT_WEIGHTS.items()},
    "viet": 0.0,          # Latin Extended Additional (Vietnamese)
    "digit_run": 1.03,     # o200k groups digits by at most three
    "digit_group": 1.03,
    "space_digit": 1.03,   # a space does not merge into the number after it
        "punct_run": 1.1053,
    "join_word": 0.3895,     # _kind .path: an underscore or a dot before a word nearly always does
    "mark_prefix": -0.1973,  # a lone mark (not _ . - /) between a non-space and a letter: in the word\'s piece
    "punct_newline": -0.0295, # ):\n  a mark's piece takes the line breaks after it
    "slash_line": -1.03,      # "//" opening a line: joins the mark and line break before it
    "newline": 1.4462,
    "blank_line": -1.03,    # \n\n, \n\n\n are one piece each (fitted negative)
    "line_word": 0.5847,     # a word opening a line has no space to merge with: rarer pieces
    "indent": 1.0333,        # a run of two or more spaces (indentation, alignment)
    "han_s": 0.6776, "han_t": 0.8514, "han_j": 0.8667,
    "han_rare": 1.3515,      # a Han character o200k has no token for
    "space_cjk": 0.5016,     # 加 上 使 用: a space before a Han or kana character is a piece of its own
    "cjk_punct": 0.7474,     # 。、「」 merge with their neighbours
    "kana": 0.6047,
    "fullwidth": 0.6575,     # ，：（）
    "hangul": 0.4145, "hangul_word": 0.6109,
    "cyrillic": 0.1762, "cyrillic_ext": 0.0053, "cyrillic_word": 0.3828,
    "cyrillic_x": 0.1807, "cyrillic_word_x": 0.804,  # ... in a Cyrillic language not Russian (і ї є ў ј љ њ ...)
    "greek": 0.2364, "greek_word": 0.1677,
    "armenian": 0.3544, "armenian_word": 0.3098,
    "hebrew": 0.301, "hebrew_word": 0.2897,
    "arabic": 0.2385, "arabic_ext": 0.3615, "arabic_word": 0.4294,
    # the scripts of U+0900-U+1FFF, each its own weight (token_scripts.BRAHMIC)
    "devanagari": 0.3159, "bengali": 0.4294, "gurmukhi": 0.6666, "gujarati": 0.4718, "oriya": 1.1977, "tamil": 0.3772,
    "telugu": 0.4952, "kannada": 0.4384, "malayalam": 0.3781, "sinhala": 0.6265, "thai": 0.1202, "tibetan": 1.6103,
    "myanmar": 0.5666, "georgian": 0.3738, "ethiopic": 2.08, "khmer": 0.4427,
    "unfitted": 1.03,       # per token a block outside the fitted ones costs alone (BLOCK_COSTS; held at 1 in the fit)
    "indic_word": 0.0,
    "thai_word": 1.1224,       # a space or line break before Thai (between phrases, list items)
    "script_upper": 0.6396,     # a Cyrillic or Greek capital: o200k's tokens for them are small-letter words
    "script_digit": 1.03,     # an Arabic-Indic or Persian digit: about a token each (held at 1 in the fit)
    # letter trigrams o200k's tokens hold in none, in up to 3, in a Cyrillic, Greek, Hebrew, Arabic,
    # Devanagari or Thai text (names, rare words: token_trigrams)
    "script_trigram_0": 0.7751, "script_trigram_1": 0.1524,
    "hangul_pair_0": 0.0, "hangul_pair_1": 0.0,  # ... pairs of Hangul syllables (token_hangul)
    "hangul_pair_00": 0.8222,  # ... times the share of them no token holds (names throughout split further)
    "symbol": 0.3248,        # “ ” — … arrows, maths
    "emoji": 2.083,
}
BIAS = 0.0
